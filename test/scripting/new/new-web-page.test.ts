/**
 * Issue 24, point 7: `new --base-url` pointing at a plain web server gives the same advice as `domains`
 * does there (a web page, not this service's API: check the base URL). Such a server answers a POST with
 * 501 and an HTML page (python's http.server does); before, `new` said "The service failed (HTTP 501)".
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../../client/fixture-server';
import { makeRunner, type Runner } from '../run';

let site: FixtureServer;
let r: Runner;
beforeAll(async () => {
  site = await startFixtureServer((req, res) => {
    const status = req.method === 'POST' ? 501 : 404;
    res.writeHead(status, { 'content-type': 'text/html;charset=utf-8' });
    res.end(
      `<!DOCTYPE HTML><html><head><title>Error response</title></head><body><h1>Error response</h1><p>Error code: ${status}</p></body></html>`,
    );
  });
  r = makeRunner();
});
afterAll(async () => {
  r.cleanup();
  await site.close();
});

it('new and domains at a web page both say it is a web page and to check the base URL', async () => {
  const made = await r.run('new', ['--base-url', site.baseUrl]);
  expect(made).toMatchObject({ code: 1, stdout: '' });
  expect(made.stderr).toMatch(
    /^tempmail-tui new: That address answered with a web page, not this service's API \(HTTP 501\): check the base URL\n$/,
  );
  const domains = await r.run('domains', ['--base-url', site.baseUrl]);
  expect(domains.stderr).toMatch(/answered with a web page, not this service's API \(HTTP 404\): check the base URL/);
});
