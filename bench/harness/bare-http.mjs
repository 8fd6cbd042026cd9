// The floor for check-mail: node:http and nothing of ours. Answers every request with the bytes of the
// file named on the command line (a check-mail answer `serve` gave), as `serve` sends it (JSON,
// content-length, keep-alive), and prints `HTTP <url>` once listening, as `serve` does. The checkmail
// figure loads it exactly as it loads `serve`: what its p99 shows is the machine's and the load's, so a
// check-mail p99 near it leaves nothing for our code to win.
import { readFileSync } from 'node:fs';
import http from 'node:http';

const body = readFileSync(process.argv[2]);
const server = http.createServer((_req, res) => {
  res.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(body.length),
    'cache-control': 'no-store',
  });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`HTTP http://127.0.0.1:${server.address().port}/\n`));
