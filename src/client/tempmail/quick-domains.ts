/**
 * The picker's first question, asked before the HTTP client is loaded: GET {base}/domains over Node's own
 * http(s), answered the way the client reads it (tempmail-parse.ts: terminal-safe, checked). It carries
 * the client's rules that matter for it: a timeout, no redirect followed, a size cap, and no secret (the
 * route takes none). Any trouble at all (an error, a status, a body that is not a domain list) rejects
 * with nothing to show: the caller then asks through the provider, whose answer, or error, is the one
 * the user sees. So the app's first frame can list the domains without waiting for got to load.
 */
import { USER_AGENT } from '../http/user-agent';
import type { DomainList } from '../../model/mail-types';
import { nodeHttp, nodeHttps } from '../../platform/node-http';
import { checkBaseUrl } from '../base-url';
import { isObject, parseJson } from '../wire/wire-json';
import { parseDomainList } from './tempmail-parse';

// The whole answer within this (a server that trickles a byte now and then never goes idle).
const TIMEOUT_MS = 3000;
// A domain list is a few hundred bytes; a service sending more here is left to the real client.
const MAX_BYTES = 256 * 1024;

/**
 * The service's domains, or a rejection that only says "ask the usual way"; `signal` ends the request
 * sooner (a try of `auto` ran out of time).
 */
export async function quickDomains(baseUrl: string, signal?: AbortSignal): Promise<DomainList> {
  const url = new URL('domains', checkBaseUrl(baseUrl));
  const { get } = url.protocol === 'https:' ? nodeHttps() : nodeHttp();
  const body = await new Promise<string>((resolve, reject) => {
    const options = {
      headers: { accept: 'application/json', 'user-agent': USER_AGENT },
      timeout: TIMEOUT_MS,
      signal: signal ? AbortSignal.any([AbortSignal.timeout(TIMEOUT_MS), signal]) : AbortSignal.timeout(TIMEOUT_MS),
    };
    const request = get(url, options, (response) => {
      if (response.statusCode !== 200) {
        response.resume();
        reject(new Error(`HTTP ${response.statusCode}`));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_BYTES) request.destroy(new Error('too large'));
        else chunks.push(chunk);
      });
      response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error('timeout')));
    request.on('error', reject);
  });
  const data = parseJson(body);
  if (!isObject(data) || data.status !== 'success') throw new Error('not a domain list');
  return parseDomainList(data);
}
