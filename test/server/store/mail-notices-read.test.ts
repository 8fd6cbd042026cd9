/**
 * The notices on the mail channel are untrusted text (anyone who may write to the database may NOTIFY
 * there): readNotice and readGone take only their own shape, and neither takes the other's, so an
 * older instance that knows only mail notices ignores a deletion's.
 */
import { describe, expect, it } from 'vitest';
import { readGone, readNotice } from '../../../src/server/store/postgres/mail-notices';

const hash = 'ab'.repeat(32);

describe('reading the notices of the mail channel', () => {
  it("reads a deletion's notice as Postgres writes it, and nothing else as one", () => {
    // json_build_object's own spacing.
    expect(readGone(`{"gone" : ["${hash}"]}`)).toEqual([hash]);
    expect(readGone(`{"gone":["${hash}", "not-a-hash", 7, "${'AB'.repeat(32)}"]}`)).toEqual([hash]);
    expect(readGone(`{"from" : "x", "t" : ["${hash}"]}`)).toEqual([]);
    expect(readGone('{"gone" : "all"}')).toEqual([]);
    expect(readGone('{"gone" : [')).toEqual([]);
    expect(readGone(undefined)).toEqual([]);
    expect(readGone(`{"gone":[${`"${hash}",`.repeat(130)}"${hash}"]}`)).toEqual([]);
  });

  it("does not read a deletion's notice as news of mail", () => {
    expect(readNotice(`{"gone" : ["${hash}"]}`, 'self')).toEqual([]);
    expect(readNotice(`{"from" : "other", "t" : ["${hash}"]}`, 'self')).toEqual([hash]);
  });
});
