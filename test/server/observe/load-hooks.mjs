// The module hooks of load-probe.mjs: each loaded URL, one a line, to LOAD_PROBE_OUT; the load itself unchanged.
import { appendFileSync } from 'node:fs';

export async function load(url, context, nextLoad) {
  if (process.env.LOAD_PROBE_OUT) appendFileSync(process.env.LOAD_PROBE_OUT, `${url}\n`);
  return nextLoad(url, context);
}
