/**
 * A test that runs a Debian package's program says what to install where it is missing (issue 37.13):
 * the lookup, given a PATH without nginx, names the program and its package; given one with it, finds it.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findDebianProgram } from './debian-program';

const dir = mkdtempSync(join(tmpdir(), 'tempmail-debian-program-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('findDebianProgram', () => {
  it('names the package to install when no directory of the PATH has the program', () => {
    const empty = join(dir, 'empty');
    expect(findDebianProgram('nginx', 'nginx-light', [empty, join(dir, 'nowhere')].join(delimiter))).toEqual({
      missing: 'nginx is not installed: install the nginx-light package (apt-get install nginx-light)',
    });
    expect(findDebianProgram('haproxy', 'haproxy', '').missing).toBe(
      'haproxy is not installed: install the haproxy package (apt-get install haproxy)',
    );
  });

  it('finds the program in a directory of the PATH, and passes over a file it may not run', () => {
    const bin = join(dir, 'bin');
    const other = join(dir, 'other');
    mkdirSync(bin);
    mkdirSync(other);
    writeFileSync(join(other, 'nginx'), 'not a program');
    chmodSync(join(other, 'nginx'), 0o644);
    writeFileSync(join(bin, 'nginx'), '#!/bin/sh\n');
    chmodSync(join(bin, 'nginx'), 0o755);
    expect(findDebianProgram('nginx', 'nginx-light', [other, bin].join(delimiter))).toEqual({
      path: join(bin, 'nginx'),
    });
  });
});
