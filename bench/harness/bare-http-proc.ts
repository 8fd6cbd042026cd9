/** bare-http.mjs (node:http serving one file's bytes, nothing of ours) as its own process, as serve runs. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./bare-http.mjs', import.meta.url));

export interface BareHttp {
  pid: number;
  baseUrl: string;
  stop(): Promise<void>;
}

/** Starts it on loopback, port 0, answering every request with the bytes of `bodyFile`. */
export function startBareHttp(bodyFile: string): Promise<BareHttp> {
  const child = spawn(process.execPath, [SCRIPT, bodyFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  let out = '';
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err = (err + c.toString('utf8')).slice(-2000)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`bare-http did not listen within 30 s: ${err}`));
    }, 30_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`bare-http exited (${code}) before listening: ${err}`));
    });
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      const m = /^HTTP (http:\/\/\S+\/)$/m.exec(out);
      if (!m) return;
      clearTimeout(timer);
      resolve({ pid: child.pid!, baseUrl: m[1]!, stop });
    });
  });
}
