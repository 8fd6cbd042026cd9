/**
 * The check-mail load (bench/figures/checkmail.ts, postgres.ts): CLIENTS keep-alive clients in this
 * process send one GET after another; a sample is one request, from sending it to the last byte.
 */
import { Agent, request } from 'node:http';

export const CLIENTS = 10;

/** One GET; the body is kept only when asked for (under load, reading it to the end is enough). */
export function get(url: URL, agent: Agent, keep = false): Promise<{ ms: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = request(url, { agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => keep && chunks.push(c));
      res.on('end', () => {
        if (res.statusCode !== 200) reject(new Error(`${url.pathname} answered ${res.statusCode}`));
        else resolve({ ms: performance.now() - t0, body: Buffer.concat(chunks) });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** `total` requests to `url` from CLIENTS keep-alive clients; the latency of each. */
export async function underLoad(url: URL, total: number): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
  try {
    const client = async (n: number, out: number[]) => {
      for (let i = 0; i < n; i++) out.push((await get(url, agent)).ms);
    };
    await Promise.all(Array.from({ length: CLIENTS }, () => client(10, [])));
    const samples: number[] = [];
    await Promise.all(
      Array.from({ length: CLIENTS }, (_, c) =>
        client(Math.floor(total / CLIENTS) + (c < total % CLIENTS ? 1 : 0), samples),
      ),
    );
    return samples;
  } finally {
    agent.destroy();
  }
}
