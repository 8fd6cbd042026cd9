/**
 * What the empty inbox says to do (issue 26). In local mode: `T` sends a sample message through the local
 * SMTP port, whose exact target it names. On a tempmail service on this machine (`serve`), whose SMTP
 * port the app does not know: a python3 command (nothing to install) for its default port. Elsewhere the
 * address is a real one: use it where you sign up.
 */
import { listingNote, type ListingCut } from '../../client/wire/listing';
import type { MailProvider } from '../../client/client-types';
import type { LocalServiceInfo } from '../shell/shell-types';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/i;

/** The host of a tempmail service on this machine (loopback), else undefined. */
export function thisMachineHost(provider: Pick<MailProvider, 'info' | 'baseUrl'>): string | undefined {
  if (provider.info.id !== 'tempmail') return undefined;
  try {
    const host = new URL(provider.baseUrl).hostname;
    return LOOPBACK.test(host) ? host.replace(/^\[|\]$/g, '') : undefined;
  } catch {
    return undefined;
  }
}

/** `serve`'s SMTP port unless it is told another. */
const SERVE_SMTP_PORT = 2525;

/**
 * A python3 command that sends `address` a message via SMTP `host`:`port`, a statement a line so each
 * fits 80 columns; pasted whole it is one command (the shell's quote runs over the line breaks), and
 * its lines start at the left edge, as Python wants them.
 */
export function pythonSendLines(host: string, port: number, address: string): string[] {
  return [
    "python3 -c 'import smtplib",
    `to = "${address}"`,
    'm = "From: me@example.org\\nSubject: Hello\\n\\nYour code is 482913\\n"',
    `smtplib.SMTP("${host}", ${port}).sendmail("me@example.org", to, m)'`,
  ];
}

/**
 * The empty inbox's lines. `intervalMs` is null once polling has stopped (the address expired or the
 * service forgot it): then there is nothing to wait for, and the way on is n. A listing that left
 * entries out (`cut`) says so first: then the service did list something. `nearHost`: the host of a
 * tempmail service on this machine (thisMachineHost), outside local mode.
 */
export function emptyLines(
  address: string,
  intervalMs: number | null,
  local?: LocalServiceInfo,
  cut?: ListingCut | null,
  nearHost?: string,
): string[] {
  const note = listingNote(0, cut ?? undefined);
  const lines = note ? [`No mail to show for ${address}:`, note, ''] : [`No mail yet for ${address}.`, ''];
  if (local) {
    lines.push(
      `Press T to send it a sample message via SMTP ${local.smtpHost}:${local.smtpPort} (HTML, with a`,
      'code and a link): Enter opens it, c copies the code, o opens the link.',
      'Any mail program on this machine can send to it there too (no login, no TLS).',
    );
  } else if (nearHost !== undefined) {
    lines.push(
      `Send it a message from this machine to the service's SMTP port (${SERVE_SMTP_PORT} unless`,
      'serve was given another), for example with Python (paste it whole):',
      ...pythonSendLines(nearHost, SERVE_SMTP_PORT, address),
    );
  } else {
    lines.push('Use the address where you sign up; mail shows up here by itself.');
  }
  lines.push(
    '',
    intervalMs === null
      ? 'No longer checking this address: press n for a new one, ? for keys.'
      : `Checking every ${Math.round(intervalMs / 1000)} s; press r to check now, ? for keys.`,
  );
  return lines;
}
