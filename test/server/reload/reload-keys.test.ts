/**
 * A reload (SIGHUP) says what it did with every setting the file changed: put in effect (LIVE_KEYS) or
 * kept until a restart (RESTART_KEYS). A setting in neither list was changed in the file and ignored
 * without a word (the SSH settings were, until this test).
 */
import { describe, expect, it } from 'vitest';
import { LIVE_KEYS, RESTART_KEYS } from '../../../src/server/reload/apply-config';
import { RENAMED, settingSchemas } from '../../../src/server/config/setting-schemas';

describe('the settings a reload knows', () => {
  it('holds every key a config file may set in exactly one of the live and the restart lists', () => {
    const renamed: Record<string, string> = RENAMED;
    const settings = new Set(Object.keys(settingSchemas({})).map((k) => renamed[k] ?? k));
    const live = new Set<string>(LIVE_KEYS);
    const restart = new Set<string>(RESTART_KEYS);
    expect([...settings].filter((k) => !live.has(k) && !restart.has(k))).toEqual([]);
    expect([...live].filter((k) => restart.has(k))).toEqual([]);
  });
});
