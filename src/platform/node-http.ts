/**
 * node:http and node:https by require(), not by an ES import. An ES import of a built-in module builds its
 * namespace, which reads every export, and on Node 24 a few of node:http's (its WebSocket and event
 * classes) load undici, node:http2 and node:tls to answer, before a single byte was sent (the figures:
 * docs/performance.md, "Rendering, start-up and the dependencies as published"). The app asks
 * for its first frame's domains with it, and the service starts its HTTP front end with it.
 */
import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

/** node:http, as require() gives it. */
export function nodeHttp(): typeof import('node:http') {
  return load('node:http') as typeof import('node:http');
}

/** node:https, as require() gives it. */
export function nodeHttps(): typeof import('node:https') {
  return load('node:https') as typeof import('node:https');
}
