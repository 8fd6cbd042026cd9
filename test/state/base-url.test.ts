import { describe, expect, it } from 'vitest';
import { displayBaseUrl } from '../../src/state/base-url';

describe('displayBaseUrl', () => {
  it('drops user:password@ and keeps the rest of the URL', () => {
    expect(displayBaseUrl('https://alice:s3cret@mail.example:8443/api/')).toBe('https://mail.example:8443/api/');
    expect(displayBaseUrl('http://token-only@127.0.0.1:8025/')).toBe('http://127.0.0.1:8025/');
    expect(displayBaseUrl(' http://127.0.0.1:8025/ ')).toBe('http://127.0.0.1:8025/');
    expect(displayBaseUrl('ftp://u:p@files.example/')).toBe('ftp://files.example/');
  });

  it('strips credentials from what is not a URL too, and leaves keys such as local:<dir> alone', () => {
    expect(displayBaseUrl('http://u:p@exa mple/')).toBe('http://exa mple/');
    expect(displayBaseUrl('local:/home/me/.local/share/tempmail-tui/')).toBe(
      'local:/home/me/.local/share/tempmail-tui/',
    );
  });
});
