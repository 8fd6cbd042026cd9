/**
 * The likely confirmation or magic link of a sign-up mail. Each link of the rendered body is scored:
 * words in its text, its URL and the sentence before it ("verify", "confirm", "activate", "magic",
 * "sign in", "reset", and their German, Spanish, French, Italian, Polish, Russian, Japanese, Chinese
 * and Korean kin) and a token-looking query count for it; unsubscribe, privacy, help, social and
 * app-store links count against. Nothing is returned below a threshold.
 */

import { MESSAGE_KEYWORD } from './codes-vocabulary';
import type { Link } from './html-convert';

/** What detectLink reads: the subject, the rendered text and its numbered links. */
export interface LinkInput {
  subject: string;
  text: string;
  links: Link[];
}

const POSITIVE = new RegExp(
  [
    'verif',
    'confirm',
    'activat',
    'activate',
    'magic',
    String.raw`sign[\s_-]?in`,
    String.raw`sign[\s_-]?up`,
    String.raw`log[\s_-]?in`,
    String.raw`\bauth`,
    'validat',
    'reset',
    'recover',
    String.raw`complete (?:your )?(?:registration|sign[\s-]?up|account)`,
    'accept (?:the )?invit',
    'join (?:the )?(?:team|workspace)',
    'bestätig',
    'verifizier',
    'aktivier',
    'anmeld',
    'einloggen',
    'confirmar',
    'verificar',
    'activar',
    'iniciar sesión',
    'acceder',
    'confirmer',
    'vérifi',
    'activer',
    'connexion',
    'conferma',
    'verifica',
    'attiva',
    'accedi',
    'potwierd',
    'aktywuj',
    'zaloguj',
    'подтверд',
    'активир',
    'войти',
    '確認',
    '認証',
    'ログイン',
    '验证',
    '确认',
    '登录',
    '인증',
    '확인',
  ].join('|'),
  'iu',
);

const NEGATIVE =
  /unsubscribe|opt[\s_-]?out|abmelden|abbestellen|désabonner|desuscribir|darse de baja|disiscriviti|отписаться|privacy|datenschutz|privacidad|confidentialit|terms|\bagb\b|impressum|legal|\bhelp\b|support|faq|contact|kontakt|preferences|notification settings|manage (?:your )?(?:email|subscription)|view (?:it |this )?(?:in|on) (?:your |a )?(?:browser|web)|web version|twitter\.com|\bx\.com|facebook|instagram|linkedin|youtube|tiktok|discord\.gg|apps\.apple|play\.google|feedback|survey|\bblog\b|careers|didn'?t (?:request|sign)|not you|report/iu;

// A query or path that carries a one-off secret: ?token=..., any parameter with a random-looking
// value (letters and digits, 8+), /magic/<long id>, a JWT.
const TOKEN_QUERY = /[?&#](?:token|t|code|key|k|otp|ticket|nonce|auth|sig|signature|hash|h)=[A-Za-z0-9._~%-]{6,}/iu;
const RANDOM_VALUE = /[?&#][\w.-]+=(?=[A-Za-z0-9._~%-]*\d)(?=[A-Za-z0-9._~%-]*[A-Za-z])[A-Za-z0-9._~%-]{8,}/u;
// (A JWT is looked for only where a run of its characters starts: "eyJeyJeyJ..." would otherwise
// rescan the run from every "eyJ", quadratic in the URL's length.)
const TOKEN_PATH = /\/[A-Za-z0-9_-]{20,}(?:[/?#]|$)|(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{10,}\./u;

// "If this wasn't you, reset your password": a side action, not the one the mail is for.
const NOT_YOU = /didn'?t (?:request|try|sign|make)|wasn'?t you|not you|if you did not/iu;

const THRESHOLD = 0.55;

/** Where each link is first referred to in the text, found in one pass over it. */
interface LinkPlaces {
  body: string;
  /** Index of the first "[n]" for each n. */
  refs: Map<number, number>;
}

function linkPlaces(text: string): LinkPlaces {
  const list = text.lastIndexOf('\n\nLinks:\n[1] ');
  const body = list >= 0 ? text.slice(0, list) : text;
  const refs = new Map<number, number>();
  for (const m of body.matchAll(/\[(\d{1,3})\]/g)) {
    const n = Number(m[1]);
    if (!refs.has(n)) refs.set(n, m.index ?? 0);
  }
  return { body, refs };
}

// The sentence before the link's "[n]" in the text (HTML) or before the URL itself (plain text).
// `from` is where the previous link was found: links are numbered in order of appearance, so each is
// looked for after the one before (one pass in all, however many links).
function contextBefore(places: LinkPlaces, link: Link, from: number): { context: string; at: number } {
  const { body } = places;
  let at = places.refs.get(link.n) ?? -1;
  if (at < 0) at = body.indexOf(link.url.slice(0, 40), from);
  if (at < 0) return { context: '', at: from };
  const before = body.slice(Math.max(0, at - 160), at);
  // Only the paragraph the link is in: a blank line ends what the sentence before can say.
  const para = before.lastIndexOf('\n\n');
  return { context: (para >= 0 ? before.slice(para + 2) : before).slice(-120), at: at + 1 };
}

function score(link: Link, context: string, about: number): number {
  if (!/^https?:/i.test(link.url)) return -1; // mailto: is for writing, not for confirming
  let url: string;
  try {
    const u = new URL(link.url);
    url = `${u.hostname}${decodeURIComponent(u.pathname)}${u.search}`;
  } catch {
    url = link.url;
  }
  if (NEGATIVE.test(link.text) || NEGATIVE.test(url)) return -1;
  let s = about;
  const word = POSITIVE.test(link.text);
  if (word) s += 0.5;
  if (POSITIVE.test(url)) s += 0.35;
  // A magic or confirmation link carries a one-off secret; a bare /login page is just the site.
  s += TOKEN_QUERY.test(link.url) || RANDOM_VALUE.test(link.url) || TOKEN_PATH.test(link.url) ? 0.25 : -0.3;
  // The words before a "click here" or a bare URL say what it is for.
  if (!word && POSITIVE.test(context) && !NEGATIVE.test(context.slice(-60)) && !NOT_YOU.test(context.slice(-80))) {
    s += 0.3;
  }
  return s;
}

/** The likely confirmation / magic / sign-in link, or null when no link looks like one. */
export function detectLink(input: LinkInput): { url: string; text: string } | null {
  const links = Array.isArray(input.links) ? input.links : [];
  if (links.length === 0) return null;
  const text = typeof input.text === 'string' ? input.text.slice(0, 256 * 1024) : '';
  const subject = typeof input.subject === 'string' ? input.subject : '';
  const about = MESSAGE_KEYWORD.test(subject) || POSITIVE.test(subject) ? 0.1 : 0;
  let best: Link | null = null;
  let bestScore = THRESHOLD;
  const places = linkPlaces(text);
  let from = 0;
  for (const link of links.slice(0, 500)) {
    const found = contextBefore(places, link, from);
    from = found.at;
    const s = score(link, found.context, about);
    if (s >= bestScore + (best ? 0.001 : 0)) {
      best = link;
      bestScore = s;
    }
  }
  return best ? { url: best.url, text: best.text } : null;
}
