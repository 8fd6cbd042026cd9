/** Assertions shared by the client's tests. */
import { inspect } from 'node:util';
import { expect } from 'vitest';
import { ApiError, type ApiErrorKind } from '../../src/client/api-error';

/**
 * Expects `promise` to reject with an ApiError of `kind` and returns it; with `secret`, also checks that
 * no serialization of the error (deep inspect, JSON, String, stack) carries it.
 */
export async function expectFailure(promise: Promise<unknown>, kind: ApiErrorKind, secret?: string): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'expected the call to fail').toBeInstanceOf(ApiError);
  const e = error as ApiError;
  expect(e.kind, e.message).toBe(kind);
  if (secret) {
    for (const dump of [
      inspect(e, { depth: Infinity, showHidden: true }),
      JSON.stringify(e),
      String(e),
      e.stack ?? '',
    ]) {
      expect(dump).not.toContain(secret);
    }
  }
  return e;
}
