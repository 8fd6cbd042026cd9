/**
 * Issue 24, point 3: Guerrilla Mail's own words. A name set_email_user will not give comes back as the
 * old address with its reason in `alias_error` (before: the random address was taken silently as if the
 * name had been given); a function it cannot serve is answered 200 with {error} (before: "not a record").
 */
import { afterEach, expect, it } from 'vitest';
import { createGuerrillaProvider } from '../../../src/client/guerrilla/guerrilla-provider';
import { startGuerrillaFake, type GuerrillaFake } from '../../providers/guerrilla-fake';

const fakes: GuerrillaFake[] = [];
afterEach(async () => {
  for (const f of fakes.splice(0)) await f.close();
});

it('a refused name says why, in its words', async () => {
  const fake = await startGuerrillaFake({ refuseNames: { webmaster: 'That name is reserved' } });
  fakes.push(fake);
  const provider = createGuerrillaProvider({ baseUrl: fake.baseUrl, retries: 0 });
  await expect(provider.createSession({ prefix: 'webmaster' })).rejects.toThrow(
    'Guerrilla Mail refused the name webmaster: That name is reserved',
  );
  await expect(provider.createSession({ prefix: 'someone-else' })).resolves.toMatchObject({
    email: 'someone-else@guerrillamail.com',
  });
});

it('an {error} answer is said as Guerrilla Mail said it, made terminal-safe', async () => {
  const fake = await startGuerrillaFake({ sayError: 'Service \u001b[31mtemporarily\u001b[0m unavailable' });
  fakes.push(fake);
  const provider = createGuerrillaProvider({ baseUrl: fake.baseUrl, retries: 0 });
  const error = (await provider.createSession().catch((e: unknown) => e)) as Error;
  expect(error.message).toBe('Guerrilla Mail said: Service temporarily unavailable');
  expect(error.message).not.toContain('\u001b');
});
