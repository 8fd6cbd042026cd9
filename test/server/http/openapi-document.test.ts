/**
 * docs/server/openapi.yaml on its own: a valid OpenAPI 3.1 document whose schemas all compile, naming
 * exactly the routes the code serves (the route table, the admin routes in it, and /metrics) with the
 * methods they take, the admin token on the admin routes only, and the headers every answer carries.
 * The checker the live test uses (openapi-check.ts) is shown to find what does not match, so that test
 * cannot pass by checking nothing.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_ROUTES } from '../../../src/server/admin/admin-routes';
import { ROUTES } from '../../../src/server/http/routes';
import { METRICS_PATH } from '../../../src/server/observe/metrics-server';
import { ApiCheck, loadSpec, METHODS, operationsOf, type ResponseObject, type Spec } from './openapi-check';

let loaded: Awaited<ReturnType<typeof loadSpec>>;
let spec: Spec;
beforeAll(async () => {
  loaded = await loadSpec();
  spec = loaded.spec;
});

const served = () =>
  [...Object.entries(ROUTES).map(([path, route]) => `${route.method} ${path}`), `GET ${METRICS_PATH}`].sort();

describe('docs/server/openapi.yaml', () => {
  it('is a valid OpenAPI 3.1 document', () => {
    expect(loaded.errors).toBeUndefined();
    expect(loaded.valid).toBe(true);
    expect(loaded.version).toBe('3.1');
  });

  it('holds only schemas that compile as strict JSON Schema 2020-12', () => {
    expect(new ApiCheck(spec, loaded.raw).compileAll()).toBeGreaterThan(100);
  });

  it('describes every route the service serves, with its method, and no route it does not serve', () => {
    const described = operationsOf(spec).sort();
    expect({
      servedButNotDescribed: served().filter((r) => !described.includes(r)),
      describedButNotServed: described.filter((r) => !served().includes(r)),
    }).toEqual({
      servedButNotDescribed: [],
      describedButNotServed: [],
    });
    expect(described.length).toBeGreaterThan(10);
  });

  it('asks for the admin token on the admin routes, and on no other', () => {
    for (const [path, item] of Object.entries(spec.paths)) {
      for (const op of METHODS.flatMap((m) => item[m] ?? [])) {
        const schemes = (op.security ?? []).flatMap((s) => Object.keys(s));
        if (Object.hasOwn(ADMIN_ROUTES, path)) expect(schemes, path).toEqual(['adminToken']);
        else expect(schemes, path).not.toContain('adminToken');
      }
    }
  });

  it('says every answer carries Tempmail-Capabilities, and every JSON answer no-store and nosniff', () => {
    const responses: [string, ResponseObject][] = Object.entries(spec.components.responses);
    for (const [path, item] of Object.entries(spec.paths)) {
      for (const m of METHODS.filter((x) => x in item))
        for (const [status, r] of Object.entries(item[m]!.responses)) responses.push([`${m} ${path} ${status}`, r]);
    }
    const missing = responses.flatMap(([where, r]) => {
      const names = Object.keys(r.headers ?? {});
      const want = [
        'Tempmail-Capabilities',
        ...(r.content?.['application/json'] ? ['Cache-Control', 'X-Content-Type-Options'] : []),
      ];
      return want.filter((h) => !names.includes(h) || !r.headers![h]!.required).map((h) => `${where}: ${h}`);
    });
    expect(missing).toEqual([]);
  });

  it('gives each operation an id, a summary, a tag and a success answer', () => {
    for (const [path, item] of Object.entries(loaded.raw.paths)) {
      for (const m of METHODS.filter((x) => x in item)) {
        const op = item[m] as unknown as {
          operationId?: string;
          summary?: string;
          tags?: string[];
          responses: Record<string, unknown>;
        };
        expect(op.operationId, path).toMatch(/^[a-z][A-Za-z]+$/);
        expect(op.summary, path).toBeTruthy();
        expect(op.tags?.length, path).toBe(1);
        expect(
          Object.keys(op.responses).filter((s) => s.startsWith('2')),
          path,
        ).toHaveLength(1);
      }
    }
  });

  it("is the package's version", () => {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(spec.info.version).toBe(pkg.version);
  });
});

describe('the checker of answers', () => {
  const json = (body: unknown, extra: Record<string, string> = {}) => ({
    status: 200,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'tempmail-capabilities': 'bearer, events',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      ...extra,
    },
    body: Buffer.from(JSON.stringify(body)),
  });
  const sent = { method: 'GET', path: '/domains', query: {}, headers: {} };
  const good = { status: 'success', domains: [{ id: 1, domain: 'tempmail.test' }], extmail_accounts: [] };

  it('passes an answer as described, and finds each way one is not', () => {
    const api = new ApiCheck(spec, loaded.raw);
    expect(api.check(sent, json(good))).toEqual([]);
    expect(api.check(sent, json({ ...good, extra: 1 })).join()).toMatch(/unevaluated properties/);
    expect(api.check(sent, json({ ...good, domains: [{ id: '1', domain: 'x' }] })).join()).toMatch(/must be integer/);
    expect(api.check(sent, json(good, { 'cache-control': 'max-age=60' })).join()).toMatch(/Cache-Control: .*constant/);
    const bare = json(good);
    delete (bare.headers as Record<string, string>)['tempmail-capabilities'];
    expect(api.check(sent, bare)).toEqual(['GET /domains 200: header Tempmail-Capabilities is missing']);
    expect(api.check(sent, { ...json(good), status: 201 })).toEqual(['GET /domains 201: status 201 is not described']);
    expect(api.check(sent, json(good, { 'content-type': 'text/html' })).join()).toMatch(
      /Content-Type "text\/html" is not described/,
    );
    expect(api.check({ ...sent, path: '/nope' }, json(good))).toEqual(['GET /nope is not described']);
    expect(api.check({ ...sent, query: { verbose: '1' } }, json(good))).toEqual([
      'GET /domains: query parameter verbose is not described',
    ]);
  });
});
