/**
 * docs/server/openapi.yaml as the tests read it: checked against the OpenAPI 3.1 schema
 * (@seriousme/openapi-schema-validator), its references resolved, every schema in it compiled with Ajv
 * (JSON Schema 2020-12, strict: a misspelt keyword or a pattern that does not compile is an error).
 * `ApiCheck` checks a real request and its answer against it and keeps account of what was exercised,
 * so a test can name what it left out.
 *
 * Answers are checked more strictly than the description says: every object with `properties` takes
 * no others here (unevaluatedProperties: false), so a field the service sends but the description does
 * not name fails the test, while the description itself stays open to fields a later version adds.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { parse } from 'yaml';

export const SPEC_FILE = fileURLToPath(new URL('../../../docs/server/openapi.yaml', import.meta.url));

export type Schema = { [keyword: string]: unknown };
export interface HeaderObject {
  required?: boolean;
  schema: Schema;
}
export interface ResponseObject {
  description: string;
  headers?: Record<string, HeaderObject>;
  content?: Record<string, { schema?: Schema }>;
}
export interface ParameterObject {
  name: string;
  in: 'query' | 'header';
  required?: boolean;
  schema: Schema;
}
export interface OperationObject {
  operationId: string;
  parameters?: ParameterObject[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, ResponseObject>;
  security?: Record<string, string[]>[];
}
export interface Spec {
  info: { version: string };
  paths: Record<string, Record<string, OperationObject>>;
  components: {
    responses: Record<string, ResponseObject>;
    securitySchemes: Record<string, { type: string; in?: string; name?: string }>;
  };
}

/** The HTTP methods an OpenAPI path item may describe. */
export const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** What the document checks say about it, and the document with every reference resolved. */
export async function loadSpec(): Promise<{ valid: boolean; version: string; errors: unknown; spec: Spec; raw: Spec }> {
  const text = readFileSync(SPEC_FILE, 'utf8');
  const validator = new Validator();
  const result = await validator.validate(text);
  const spec = (result.valid ? validator.resolveRefs() : {}) as unknown as Spec;
  return { valid: result.valid, version: validator.version, errors: result.errors, spec, raw: parse(text) as Spec };
}

/** Every operation of `spec`, as "GET /path". */
export function operationsOf(spec: Spec): string[] {
  return Object.entries(spec.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => m in item).map((m) => `${m.toUpperCase()} ${path}`),
  );
}

/** `schema` and everything in it, objects that name their properties closed to others (see the header). */
function closeObjects(schema: unknown, seen = new Set<unknown>()): void {
  if (schema === null || typeof schema !== 'object' || seen.has(schema)) return;
  seen.add(schema);
  const s = schema as Schema;
  if (
    s.type === 'object' &&
    s.properties &&
    s.additionalProperties === undefined &&
    s.unevaluatedProperties === undefined
  ) {
    s.unevaluatedProperties = false;
  }
  for (const key of ['properties', 'anyOf', 'oneOf', 'allOf', 'items', 'additionalProperties', 'propertyNames']) {
    const inner = s[key];
    if (Array.isArray(inner)) for (const one of inner) closeObjects(one, seen);
    else if (key === 'properties' && inner && typeof inner === 'object')
      for (const one of Object.values(inner)) closeObjects(one, seen);
    else closeObjects(inner, seen);
  }
}

/** An answer as it came off the wire; header names in lower case. */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** A request as the test made it: what the description must have named when it succeeded. */
export interface Sent {
  method: string;
  path: string;
  query: Record<string, string>;
  /** The body's parameters, and which media type carried them. */
  body?: { type: string; params: Record<string, unknown> };
  headers: Record<string, string>;
}

const JSON_TYPES = /^application\/(?:[a-z0-9.+-]+\+)?json$/;
const mediaTypeOf = (contentType: string | undefined) => (contentType ?? '').split(';')[0]!.trim().toLowerCase();

/** Validates answers (and the requests that got them) against the description, and keeps account. */
export class ApiCheck {
  private readonly ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  private readonly compiled = new Map<unknown, ValidateFunction>();
  readonly spec: Spec;
  /** What was exercised: "GET /x 200", "component NotFound", "param GET /x id", "type POST /x application/json", "scheme sessionBearer". */
  readonly seen = new Set<string>();

  constructor(
    spec: Spec,
    private readonly raw: Spec,
  ) {
    this.spec = structuredClone(spec);
    for (const schema of this.schemas()) closeObjects(schema);
  }

  /** Every schema the description holds (content, parameters, headers), compiled; throws on a bad one. */
  compileAll(): number {
    const all = this.schemas();
    for (const schema of all) this.validator(schema);
    return all.length;
  }

  private schemas(): Schema[] {
    const out: Schema[] = [];
    const fromResponse = (r: ResponseObject) => {
      for (const h of Object.values(r.headers ?? {})) out.push(h.schema);
      for (const c of Object.values(r.content ?? {})) if (c.schema) out.push(c.schema);
    };
    for (const item of Object.values(this.spec.paths)) {
      for (const op of Object.values(item)) {
        for (const p of op.parameters ?? []) out.push(p.schema);
        for (const c of Object.values(op.requestBody?.content ?? {})) out.push(c.schema);
        for (const r of Object.values(op.responses)) fromResponse(r);
      }
    }
    for (const r of Object.values(this.spec.components.responses)) fromResponse(r);
    return out;
  }

  private validator(schema: Schema): ValidateFunction {
    let v = this.compiled.get(schema);
    if (!v) {
      v = this.ajv.compile(schema);
      this.compiled.set(schema, v);
    }
    return v;
  }

  private problemsOf(schema: Schema, value: unknown, what: string): string[] {
    const v = this.validator(schema);
    return v(value) ? [] : [`${what}: ${this.ajv.errorsText(v.errors, { dataVar: what })}`];
  }

  operation(method: string, path: string): OperationObject | undefined {
    return this.spec.paths[path]?.[method.toLowerCase()];
  }

  /**
   * The problems of `answer` to `sent`, [] when it is as described. `as` names the component response
   * it must be when the description has no operation for the request (an unknown path, another method).
   */
  check(sent: Sent, answer: Answer, as?: string): string[] {
    const where = `${sent.method} ${sent.path} ${answer.status}`;
    let response: ResponseObject | undefined;
    if (as !== undefined) {
      response = this.spec.components.responses[as];
      if (!response) return [`no component response ${as}`];
      this.seen.add(`component ${as}`);
    } else {
      const op = this.operation(sent.method, sent.path);
      if (!op) return [`${sent.method} ${sent.path} is not described`];
      response = op.responses[String(answer.status)];
      if (!response) return [`${where}: status ${answer.status} is not described`];
      this.seen.add(where);
      const ref = (
        this.raw.paths[sent.path]?.[sent.method.toLowerCase()]?.responses[String(answer.status)] as
          | { $ref?: string }
          | undefined
      )?.$ref;
      if (ref) this.seen.add(`component ${ref.split('/').pop()}`);
    }
    const problems = [
      ...this.headerProblems(response, answer, where),
      ...this.contentProblems(response, answer, where),
    ];
    if (as === undefined && answer.status < 400) problems.push(...this.requestProblems(sent));
    return problems;
  }

  private headerProblems(response: ResponseObject, answer: Answer, where: string): string[] {
    const problems: string[] = [];
    for (const [name, header] of Object.entries(response.headers ?? {})) {
      const value = answer.headers[name.toLowerCase()];
      if (value === undefined) {
        if (header.required) problems.push(`${where}: header ${name} is missing`);
        continue;
      }
      // Header values are text; an integer schema means its decimal digits.
      const typed = header.schema.type === 'integer' && /^[0-9]{1,15}$/.test(value) ? Number(value) : value;
      problems.push(...this.problemsOf(header.schema, typed, `${where} header ${name}`));
    }
    return problems;
  }

  private contentProblems(response: ResponseObject, answer: Answer, where: string): string[] {
    if (!response.content) return answer.body.length === 0 ? [] : [`${where}: a body where none is described`];
    const type = mediaTypeOf(answer.headers['content-type']);
    const key = [type, `${type.split('/')[0]}/*`, '*/*'].find((k) => k in response.content!);
    if (key === undefined)
      return [`${where}: Content-Type ${JSON.stringify(answer.headers['content-type'])} is not described`];
    const schema = response.content[key]!.schema;
    if (!schema) return [];
    if (JSON_TYPES.test(type)) {
      let value: unknown;
      try {
        value = JSON.parse(answer.body.toString('utf8'));
      } catch {
        return [`${where}: the body is not JSON`];
      }
      return this.problemsOf(schema, value, `${where} body`);
    }
    if (type.startsWith('text/')) return this.problemsOf(schema, answer.body.toString('utf8'), `${where} body`);
    return []; // bytes (a message, an attachment): the test compares them with what was sent
  }

  /** A request that succeeded used only what the description names, and in the described forms. */
  private requestProblems(sent: Sent): string[] {
    const op = this.operation(sent.method, sent.path)!;
    const opName = `${sent.method} ${sent.path}`;
    const problems: string[] = [];
    const params = new Map((op.parameters ?? []).map((p) => [`${p.in} ${p.name.toLowerCase()}`, p]));
    const schemes = (op.security ?? []).flatMap((s) => Object.keys(s));
    const tokenParam = schemes.find((s) => this.spec.components.securitySchemes[s]?.type === 'apiKey');
    const tokenName = tokenParam ? this.spec.components.securitySchemes[tokenParam]!.name : undefined;
    const use = (name: string, scheme?: string) => {
      this.seen.add(`param ${opName} ${name}`);
      if (scheme) this.seen.add(`scheme ${scheme}`);
    };
    for (const [name, value] of Object.entries(sent.query)) {
      if (name === tokenName) {
        use(name, tokenParam);
        continue;
      }
      const p = params.get(`query ${name}`);
      if (!p) {
        problems.push(`${opName}: query parameter ${name} is not described`);
        continue;
      }
      use(name);
      const typed = p.schema.type === 'integer' && /^[0-9]{1,15}$/.test(value) ? Number(value) : value;
      problems.push(...this.problemsOf(p.schema, typed, `${opName} query ${name}`));
    }
    for (const [name, value] of Object.entries(sent.headers)) {
      if (name === 'authorization') {
        const bearer = schemes.find((s) => this.spec.components.securitySchemes[s]?.type === 'http');
        if (!bearer) problems.push(`${opName}: an Authorization header is not described`);
        else this.seen.add(`scheme ${bearer}`);
        continue;
      }
      const p = params.get(`header ${name}`);
      if (p) {
        use(p.name);
        problems.push(...this.problemsOf(p.schema, value, `${opName} header ${p.name}`));
      }
    }
    if (sent.body) {
      const described = op.requestBody?.content[sent.body.type];
      if (described) {
        this.seen.add(`type ${opName} ${sent.body.type}`);
        for (const name of Object.keys(sent.body.params)) use(name, name === tokenName ? tokenParam : undefined);
        problems.push(...this.problemsOf(described.schema, sent.body.params, `${opName} ${sent.body.type} body`));
      } else if (op.requestBody) {
        problems.push(`${opName}: a ${sent.body.type} body is not described`);
      } else {
        // A GET's parameters may come in a body too (the description says so): the query's names hold.
        problems.push(
          ...this.requestProblems({
            ...sent,
            query: Object.fromEntries(Object.entries(sent.body.params).map(([k, v]) => [k, String(v)])),
            body: undefined,
          }),
        );
      }
    }
    return problems;
  }

  /** What the description names that no checked request or answer exercised. */
  unexercised(): string[] {
    const want: string[] = [];
    for (const [path, item] of Object.entries(this.raw.paths)) {
      for (const method of METHODS.filter((m) => m in item)) {
        const op = item[method]!;
        const name = `${method.toUpperCase()} ${path}`;
        for (const [status, r] of Object.entries(op.responses)) {
          // A shared response (an error) must be seen once somewhere; one of this operation's own, here.
          const ref = (r as { $ref?: string }).$ref;
          want.push(ref ? `component ${ref.split('/').pop()}` : `${name} ${status}`);
        }
        for (const p of this.operation(method, path)!.parameters ?? []) want.push(`param ${name} ${p.name}`);
        for (const type of Object.keys(op.requestBody?.content ?? {})) {
          want.push(`type ${name} ${type}`);
          const schema = this.operation(method, path)!.requestBody!.content[type]!.schema;
          for (const p of Object.keys((schema.properties as object | undefined) ?? {})) want.push(`param ${name} ${p}`);
        }
        for (const s of op.security ?? []) for (const scheme of Object.keys(s)) want.push(`scheme ${scheme}`);
      }
    }
    return [...new Set(want)].filter((w) => !this.seen.has(w));
  }
}
