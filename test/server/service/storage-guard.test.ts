/** storageGuard and domainsOf (mail-service.ts): how store failures reach a client, and the domains a reload changes. */
import { describe, expect, it } from 'vitest';
import { domainsOf, storageGuard } from '../../../src/server/service/mail-service';
import { asLogger } from '../../../src/server/observe/log';
import { StorageHealth } from '../../../src/server/observe/storage-health';
import { ServiceError } from '../../../src/server/service/service-types';
import { StoreClosedError } from '../../../src/server/store/store';

/** A real StorageHealth whose log lines are kept; its probe always answers. */
function health() {
  const lines: string[] = [];
  return { lines, storage: new StorageHealth({ probe: async () => true, log: asLogger((l) => lines.push(l)) }) };
}

describe('storageGuard', () => {
  it('answers storage_unavailable without the reason, marks the storage failing, and a write that works clears it', async () => {
    const { storage, lines } = health();
    const guarded = storageGuard(storage);
    const failure = await guarded(() => Promise.reject(new Error('connect ECONNREFUSED 10.0.0.7:5432'))).catch(
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(ServiceError);
    expect(failure).toMatchObject({
      code: 'storage_unavailable',
      message: 'Mail storage is unavailable; try again later',
    });
    expect(String((failure as Error).message)).not.toContain('10.0.0.7');
    expect(storage.detail()).toContain('ECONNREFUSED');
    expect(lines.join('\n')).toContain('storage failing');

    expect(await guarded(async () => 'read', false)).toBe('read');
    expect(storage.ok()).toBe(false); // a read does not say the storage is back
    expect(await guarded(async () => 'written', true)).toBe('written');
    expect(storage.ok()).toBe(true);
  });

  it('says the service is shutting down for a closed store, without marking the storage failing', async () => {
    const { storage } = health();
    const failure = await storageGuard(storage)(() => Promise.reject(new StoreClosedError())).catch((e: unknown) => e);
    expect(failure).toMatchObject({
      code: 'storage_unavailable',
      message: 'The service is shutting down; try again later',
    });
    expect(storage.ok()).toBe(true);
  });

  it('passes a ServiceError through as it is', async () => {
    const { storage } = health();
    const mine = new ServiceError('prefix_taken', 'taken');
    expect(await storageGuard(storage)(() => Promise.reject(mine)).catch((e: unknown) => e)).toBe(mine);
    expect(storage.ok()).toBe(true);
  });
});

describe('domainsOf', () => {
  it('gives the domains in lower case, and the new ones once a reload replaced the list', () => {
    const config = { domains: ['Tempmail.Test', 'INBOX.test'] };
    const ours = domainsOf(config);
    expect(ours()).toEqual(['tempmail.test', 'inbox.test']);
    config.domains = ['Other.Test'];
    expect(ours()).toEqual(['other.test']);
  });
});
