/**
 * Issue 24, point 3: mail.tm's own words reach the user. A name it refuses is said with its violations
 * per field, in each shape its deployments answer 422 with: the Hydra error (hydra:title and
 * hydra:description), the RFC 7807 problem document (title and detail), and a bare violation list whose
 * only title is the empty "An error occurred" (before: that title was all that was said).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { isApiError } from '../../../src/client/api-error';
import { createMailtmProvider } from '../../../src/client/mailtm/mailtm-provider';
import { startMailtmFake, type MailtmFake, type MailtmFakeOptions } from '../../providers/mailtm-fake';

const fakes: MailtmFake[] = [];
afterEach(async () => {
  for (const f of fakes.splice(0)) await f.close();
});

const SHAPES: [string, MailtmFakeOptions][] = [
  ['Hydra (JSON-LD)', {}],
  ['problem document (JSON)', { format: 'json' }],
  ['bare violations, JSON-LD', { bareViolations: true }],
  ['bare violations, JSON', { bareViolations: true, format: 'json' }],
];

describe.each(SHAPES)('mail.tm 422 as %s', (_name, options) => {
  it("a refused name is said in mail.tm's words, field by field; a taken one is 'taken'", async () => {
    const fake = await startMailtmFake(options);
    fakes.push(fake);
    const mailtm = createMailtmProvider({ baseUrl: fake.baseUrl, retries: 0 });
    const refused = await mailtm.createSession({ prefix: 'ab', domain: 'mailtm.test' }).catch((e: unknown) => e);
    expect(isApiError(refused) && refused.kind).toBe('bad_request');
    expect((refused as Error).message).toBe('mail.tm refused ab@mailtm.test: address: This value is not valid.');
    await mailtm.createSession({ prefix: 'held-name', domain: 'mailtm.test' });
    const taken = await mailtm.createSession({ prefix: 'held-name', domain: 'mailtm.test' }).catch((e: unknown) => e);
    expect(isApiError(taken) && taken.kind).toBe('prefix_taken');
  });
});
