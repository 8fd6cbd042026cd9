/**
 * The answers of the mail.tm conformance fake (mailtm-fake.ts), as docs.mail.tm shows them: accounts,
 * message summaries and full messages (string ids, `from` as {name, address}, `html` as a list,
 * attachments with their downloadUrl), collections in JSON-LD or as plain arrays, and API Platform's
 * error shapes (hydra:Error and ConstraintViolationList, or RFC 7807 problem+json).
 */

export interface FakeAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
}

export interface FakeMail {
  from?: { name: string; address: string };
  to?: string;
  cc?: string[];
  subject?: string;
  text?: string;
  html?: string;
  attachments?: FakeAttachment[];
  /** Receive time (default now). */
  at?: Date;
  /** Already read elsewhere (mail.tm's web client): listed with `seen: true`. */
  seen?: boolean;
  /** The id it is listed under (a hostile service's `../x`); default 24 random hex digits, as mail.tm's. */
  id?: string;
}

export interface Stored {
  id: string;
  accountId: string;
  mail: FakeMail;
  at: Date;
  seen: boolean;
  attachments: (FakeAttachment & { id: string })[];
}

export interface Account {
  id: string;
  address: string;
  password: string;
  createdAt: Date;
}

export interface Violation {
  propertyPath: string;
  message: string;
}

/**
 * An error answer: JSON-LD when `ld`, else problem+json; `bare`: a constraint violation list with only
 * the empty title and the violations (no description or detail), as some deployments answer 422.
 */
export function problemJson(ld: boolean, status: number, description: string, violation?: Violation, bare = false) {
  if (bare && violation) {
    return ld
      ? {
          '@context': '/contexts/ConstraintViolationList',
          '@type': 'ConstraintViolationList',
          'hydra:title': 'An error occurred',
          violations: [violation],
        }
      : { title: 'An error occurred', status, violations: [violation] };
  }
  if (ld) {
    return {
      '@context': violation ? '/contexts/ConstraintViolationList' : '/contexts/Error',
      '@type': violation ? 'ConstraintViolationList' : 'hydra:Error',
      'hydra:title': 'An error occurred',
      'hydra:description': description,
      ...(violation ? { violations: [violation] } : {}),
    };
  }
  return {
    type: 'https://tools.ietf.org/html/rfc2616#section-10',
    title: 'An error occurred',
    status,
    detail: description,
    ...(violation ? { violations: [violation] } : {}),
  };
}

/** A page of a collection: hydra:Collection with its view when `ld`, else the bare array. */
export function collectionJson(ld: boolean, path: string, items: unknown[], total: number, page: number, last: number) {
  if (!ld) return items;
  return {
    '@context': `/contexts/${path === 'domains' ? 'Domain' : 'Message'}`,
    '@id': `/${path}`,
    '@type': 'hydra:Collection',
    'hydra:member': items,
    'hydra:totalItems': total,
    'hydra:view': {
      '@id': `/${path}?page=${page}`,
      '@type': 'hydra:PartialCollectionView',
      'hydra:first': `/${path}?page=1`,
      'hydra:last': `/${path}?page=${last}`,
      ...(page < last ? { 'hydra:next': `/${path}?page=${page + 1}` } : {}),
    },
  };
}

/** Bytes a stored message takes (its account's `used`). */
export const storedSize = (m: Stored) =>
  (m.mail.text?.length ?? 0) + (m.mail.html?.length ?? 0) + m.attachments.reduce((n, a) => n + a.content.length, 0);

export const accountShape = (a: Account, used: number) => ({
  '@id': `/accounts/${a.id}`,
  '@type': 'Account',
  id: a.id,
  address: a.address,
  quota: 40_000_000,
  used,
  isDisabled: false,
  isDeleted: false,
  createdAt: a.createdAt.toISOString(),
  updatedAt: a.createdAt.toISOString(),
});

/** A message as GET /messages lists it (with `intro`). */
export function summaryShape(m: Stored, to: string) {
  return {
    '@id': `/messages/${m.id}`,
    '@type': 'Message',
    id: m.id,
    accountId: `/accounts/${m.accountId}`,
    msgid: `<${m.id}@fake.mail.tm>`,
    from: m.mail.from ?? { name: '', address: 'someone@example.org' },
    to: [{ name: '', address: m.mail.to ?? to }],
    subject: m.mail.subject ?? '',
    intro: (m.mail.text ?? '').slice(0, 120),
    seen: m.seen,
    isDeleted: false,
    hasAttachments: m.attachments.length > 0,
    size: storedSize(m),
    downloadUrl: `/messages/${m.id}/download`,
    createdAt: m.at.toISOString(),
    updatedAt: m.at.toISOString(),
  };
}

/** A message as GET /messages/{id} gives it (no `intro`; text, html parts, attachments). */
export function messageShape(m: Stored, to: string) {
  const { intro: _intro, ...rest } = summaryShape(m, to);
  return {
    ...rest,
    cc: m.mail.cc ?? [],
    bcc: [],
    flagged: false,
    verifications: [],
    retention: true,
    retentionDate: new Date(m.at.getTime() + 7 * 86_400_000).toISOString(),
    text: m.mail.text ?? '',
    html: m.mail.html !== undefined ? [m.mail.html] : [],
    attachments: m.attachments.map((a) => ({
      id: a.id,
      filename: a.filename,
      contentType: a.contentType,
      disposition: 'attachment',
      transferEncoding: 'base64',
      related: false,
      size: a.content.length,
      downloadUrl: `/messages/${m.id}/attachment/${a.id}`,
    })),
  };
}

/** The message's source (GET /sources/{id} `data`, and its download). */
export function rawShape(m: Stored, to: string): string {
  const from = m.mail.from ?? { name: '', address: 'someone@example.org' };
  return `From: ${from.name} <${from.address}>\r\nTo: ${to}\r\nSubject: ${m.mail.subject ?? ''}\r\nMessage-ID: <${m.id}@fake.mail.tm>\r\n\r\n${m.mail.text ?? m.mail.html ?? ''}\r\n`;
}
