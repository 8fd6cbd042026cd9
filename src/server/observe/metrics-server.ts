/**
 * `--metrics-listen HOST:PORT`: GET /metrics on a listener of its own (a private address for the scraper),
 * so the metrics need not be public on the service's HTTP port. Everything else there is 404.
 *
 * A scraper needs a connection or two: at most MAX_CONNECTIONS are open at once (more are closed at
 * once), and a request must come within the HTTP port's time limits. With Node's defaults a silent
 * connection was held for up to 90 s and their number had no bound: each holds a file descriptor, which
 * SMTP and the data dir need too.
 */
import { nodeHttp } from '../../platform/node-http';
import { serverTimeouts } from '../../platform/server-timeouts';

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

export type RenderMetrics = () => Promise<{ contentType: string; body: string }>;

/** Where the metrics are served, on this listener or on the HTTP port (docs/server/openapi.yaml names it). */
export const METRICS_PATH = '/metrics';

/** Connections open at once on the metrics listener. */
const MAX_METRICS_CONNECTIONS = 16;

/** The HTTP port's limits (ms): the request's head, and the whole request. */
export interface MetricsTimeouts {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
}

/** Listens on `where` (port 0 = any free one) and answers GET /metrics with `render`. */
export function startMetricsServer(
  where: { host: string; port: number },
  render: RenderMetrics,
  timeouts: MetricsTimeouts,
): Promise<MetricsServer> {
  const server = nodeHttp().createServer(
    serverTimeouts(timeouts.headersTimeoutMs, timeouts.requestTimeoutMs),
    (req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      if (path !== METRICS_PATH || (req.method !== 'GET' && req.method !== 'HEAD')) {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('not found\n');
        return;
      }
      render().then(
        ({ contentType, body }) => {
          res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
          res.end(req.method === 'HEAD' ? undefined : body);
        },
        () => {
          res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
          res.end('metrics unavailable\n');
        },
      );
    },
  );
  server.maxConnections = MAX_METRICS_CONNECTIONS;
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(new Error(`metrics could not listen on ${where.host}:${where.port}: ${error.code ?? error.message}`)),
    );
    server.listen(where.port, where.host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : where.port;
      const host = where.host.includes(':') ? `[${where.host}]` : where.host;
      resolve({
        url: `http://${host}:${port}/metrics`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
