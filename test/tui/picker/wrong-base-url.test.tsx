/**
 * The app pointed at an address that is not the service (issue 14.15): a web server's HTML 404 page.
 * The picker and the inbox say so in words, whole (wrapped at 80 and 40 columns), with what to check,
 * and stop asking by themselves; r asks again. A real loopback server answers, through the real client.
 */
import type React from 'react';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../../../src/client/tempmail/tempmail-client';
import type { TempMailApi } from '../../../src/client/client-types';
import { App } from '../../../src/tui/app';
import { serviceLabel } from '../../../src/tui/wording/provider-text';
import { singleProvider } from '../../harness/providers';
import { textWidth } from '../../../src/text/text-width';
import { startFixtureServer, type FixtureServer, type Handler } from '../../client/fixture-server';
import { joined, renderAt, type Screen } from '../ui';

const ADVICE = "That address answered with a web page, not this service's API (HTTP 404): check the base URL";
// Node's error codes: none may reach the screen.
const RAW_CODE = /\b(?:HPE_[A-Z_]+|E[A-Z]{4,}|ERR_[A-Z_]+)\b/;

// A web server that has never heard of this API: its 404 page for every path.
const page: Handler = (_req, res) => {
  res.writeHead(404, { 'content-type': 'text/html' });
  res.end(
    '<!DOCTYPE html><html><head><title>404 Not Found</title></head><body><h1>Not Found</h1><p>nginx</p></body></html>',
  );
};

let web: FixtureServer;
beforeAll(async () => {
  web = await startFixtureServer(page);
});
afterAll(() => web.close());

function app(
  columns: number,
  extra: Partial<React.ComponentProps<typeof App>> = {},
): { screen: Screen; api: TempMailApi } {
  const api = createApi({ baseUrl: web.baseUrl, retries: 0, timeoutMs: 3000 });
  const screen = renderAt(
    <App
      providers={singleProvider(api, web.baseUrl)}
      settings={{ pollIntervalMs: 1000, bell: false }}
      serviceLabel={serviceLabel(web.baseUrl)}
      noColor
      onQuit={() => {}}
      {...extra}
    />,
    columns,
    24,
  );
  return { screen, api };
}

const fits = (frame: string, columns: number) => frame.split('\n').every((line) => textWidth(line) <= columns);

describe('a base URL that answers a web page', () => {
  for (const columns of [80, 40]) {
    it(`the picker says so whole at ${columns} columns, and asks again only on r`, async () => {
      web.handle(page); // and forget the requests so far
      const { screen } = app(columns);
      try {
        const frame = await screen.waitFor((f) => joined(f).includes(`Could not load the domains: ${ADVICE}`));
        expect(joined(frame)).toContain('Press r to try again, q to quit.');
        expect(frame).not.toMatch(/Retrying/);
        expect(frame).not.toMatch(RAW_CODE);
        expect(fits(frame, columns)).toBe(true);
        // The service line shows the scheme: http:// where https:// was meant is plain to see.
        expect(frame).toContain(`Service: http://127.0.0.1:${web.port}`.slice(0, columns));
        expect(web.requests.map((r) => r.path)).toEqual(['/domains']);
        await screen.press('r');
        await screen.waitFor(() => web.requests.length === 2);
        await screen.waitFor((f) => joined(f).includes('Press r to try again'));
        expect(web.requests.map((r) => r.path)).toEqual(['/domains', '/domains']);
      } finally {
        screen.unmount();
      }
    });
  }

  it('the inbox stops checking, says why in its header and whole on the status line; r checks again', async () => {
    web.handle(page); // and forget the requests so far
    const session = {
      email: 'kept@tempmail.test',
      token: 'tok-wrong-base-0123456789',
      expiresAt: new Date(Date.now() + 3_600_000),
    };
    const { screen } = app(80, { initialSession: session });
    try {
      const frame = await screen.waitFor((f) => joined(f).includes(ADVICE) && f.includes('Stopped, r tries again'));
      // The countdown is not "expired": the address is fine, the base URL is not.
      expect(frame).toMatch(/expires in \d+ min/);
      expect(frame).not.toMatch(RAW_CODE);
      expect(fits(frame, 80)).toBe(true);
      const checks = () => web.requests.filter((r) => r.path === '/check-mail').length;
      expect(checks()).toBe(1);
      await screen.press('r');
      await screen.waitFor(() => checks() === 2);
      await screen.waitFor((f) => f.includes('Stopped, r tries again'));
      expect(checks()).toBe(2);
    } finally {
      screen.unmount();
    }
  });
});
