/**
 * Node's request time limits for one of the service's HTTP listeners (the API's port, the metrics
 * listener), from the configuration's two: the request's head within `headersMs`, the whole request
 * within `requestMs` (never less than the head's; 0: no limit), and late requests looked for once a
 * second at most (Node's default 30 s let a 15 s head limit run to 45 s).
 */
export function serverTimeouts(
  headersMs: number,
  requestMs: number,
): { headersTimeout: number; requestTimeout: number; connectionsCheckingInterval: number } {
  return {
    headersTimeout: headersMs,
    requestTimeout: requestMs > 0 ? Math.max(headersMs, requestMs) : 0,
    connectionsCheckingInterval: Math.max(100, Math.min(1000, headersMs || 1000)),
  };
}
