/**
 * `T` in the inbox (issue 26): in local mode, sends this address the sample message through the local
 * service's SMTP port and says so on the status line (the message itself shows the moment the service
 * stores it); one at a time. Anywhere else it sends nothing and says why: only the app's own service is
 * known to take mail from this machine.
 */
import { useRef } from 'react';
import type { LocalServiceInfo } from '../shell/shell-types';
import { SampleError, sendSample } from './send-sample';

export interface SampleInput {
  email: string;
  /** Set in local mode: where the service takes mail. */
  local?: LocalServiceInfo;
  /** Where the address lives otherwise ("mail.tm"), for the line saying why there is no sample. */
  where: string;
  status: { info(text: string): void; note(text: string): void; fail(text: string): void };
  /** False once the session view is gone: nothing is said then. */
  mounted: { readonly current: boolean };
}

/** What `T` does. */
export function useSample({ email, local, where, status, mounted }: SampleInput): () => void {
  const sending = useRef(false);
  return () => {
    if (!local) {
      return status.info(
        `No sample sent: T mails one only through the app's own local service, and ${email} lives on ${where}.`,
      );
    }
    if (sending.current) return status.info('Still sending the sample message…');
    sending.current = true;
    const target = `SMTP ${local.smtpHost}:${local.smtpPort}`;
    status.note(`Sending a sample message via ${target}…`);
    // Its module (and node:crypto, for the code) loads on the first T, not before the first frame.
    import('./sample-message')
      .then(({ sampleMessage }) => sendSample(local, sampleMessage(email)))
      .then(
        () => {
          sending.current = false;
          if (mounted.current) status.info(`Sample message sent via ${target}: open it, then c copies its code.`);
        },
        (error: unknown) => {
          sending.current = false;
          const why = error instanceof SampleError ? error.message : 'it could not be sent';
          if (mounted.current) status.fail(`Sample message not sent: ${why}`);
        },
      );
  };
}
