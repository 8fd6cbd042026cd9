/**
 * A From whose display name carries colour sequences, through the real service and client: the service's
 * address parser drops the ESCs, and the client's boundary (safe-text.ts) drops what they leave.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { tempmailProvider } from '../../src/client/tempmail/tempmail-provider';
import { createApi } from '../../src/client/tempmail/tempmail-client';
import { sendRaw, startTestService, type TestService } from '../harness/service';

let svc: TestService | undefined;
afterEach(async () => {
  await svc?.close();
  svc = undefined;
});

describe('a From with escape codes', () => {
  it('is listed as its words, no "[31m" left', async () => {
    svc = await startTestService();
    const api = createApi({ baseUrl: svc.baseUrl });
    const provider = tempmailProvider(api, svc.baseUrl);
    const session = await provider.createSession({});
    await sendRaw(
      svc,
      session.email,
      Buffer.from(
        `From: Evil \x1b[31mRED\x1b[0m <evil@x.example>\r\nTo: ${session.email}\r\nSubject: Hi \x1b[31mred\x1b[0m\r\n\r\nbody\r\n`,
      ),
    );
    const [m] = await provider.listMessages(session);
    expect(m?.senderName).toBe('Evil RED');
    expect(m?.subject).toBe('Hi red');
  });
});
