/**
 * The vocabulary of codes.ts and codes-links.ts: labels that announce a code, labels that announce a
 * decoy, and the masking of decoy shapes (dates, times, prices, phone numbers, URLs ...) before codes
 * are looked for. Masking replaces a span with spaces of the same length, so positions and line
 * breaks stay where they were.
 */

import { textWidth } from '../text/text-width';

// Words that put a code right after (or before) them. "code" may end a compound (Bestätigungscode,
// Sicherheitscode, passcode); short words need a boundary on both sides (PIN, not "spinning"). Scripts
// written without spaces (Thai, Chinese, Japanese) or whose vowel signs are marks (Devanagari, Bengali)
// take their words anywhere. The vocabulary is the sign-up mails' of the languages in
// test/fixtures/signup/languages.ts.
export const CODE_LABEL = new RegExp(
  String.raw`(?<![\p{L}])(?:otp|pin|tan|mtan|2fa|passcode|password|passwort|kennwort|one-time code|verification code|kode|mã|şifre|şifreniz|senha|пароль)(?![\p{L}])` +
    // "Verification: 558812": a word of verification is a label where a colon follows it.
    String.raw`|(?<![\p{L}])(?:verification|verify|security|authentication)(?=\s*[:：])` +
    String.raw`|(?:code|codes|codigo|código|codice|kod|kodu|kodunuz|koden|код|кода|коду|κωδικός)(?![\p{L}])` +
    '|(?:コード|パスワード|验证码|驗證碼|校验码|确认码|动态码|登录码|安全码|인증번호|코드|認証番号|確認番号|暗証番号|' +
    'कोड|ओटीपी|কোড|ওটিপি|رمز|كود|کوڈ|او ٹی پی|รหัส|โค้ด)',
  'iu',
);

// Words of verification: a label in a sentence holding one of them is a verification code, preferred
// over a code of any other kind beside it (a receipt's "Use code SAVE20").
export const VERIFY_WORD = new RegExp(
  'verif|one[- ]time|otp|passcode|2fa|two[- ]factor|security|sign[- ]?in|log[- ]?in|authenticat|confirm|' +
    'bestätig|einmal|sicherheit|anmeld|vérif|usage unique|sécurité|segur|подтвержд|одноразов|провер|вход|' +
    '认证|验证|驗證|登录|动态|安全|認証|確認|ワンタイム|인증|보안|확인|सत्यापन|ओटीपी|লগইন|যাচাই|ওটিপি|' +
    'تحقق|تفعيل|تأكيد|تصدیق|او ٹی پی|ยืนยัน|xác minh|xác nhận|bảo mật|doğrulama|onay|güvenlik|tek kullanımlık|' +
    'keamanan|sicurezza|accesso',
  'iu',
);

// A code label followed by one of these is a coupon: "codice sconto", "code promo", "كود الخصم",
// "โค้ดส่วนลด", "mã giảm giá", "kode promo".
export const DECOY_SUFFIX =
  /^\s*(?:promo|promotionnel|de réduction|sconto|de descuento|de desconto|promocional|rabatt|indirim|скидк|الخصم|خصم|ส่วนลด|giảm giá|diskon|割引|クーポン|할인|优惠|折扣|छूट|ডিসকাউন্ট|ڈسکاؤنٹ)/iu;

// Words that put a number that is NOT a verification code after them.
export const DECOY_LABEL = new RegExp(
  String.raw`(?<![\p{L}])(?:order|orders|order id|invoice|receipt|ticket|case|booking|reservation|reference|ref|tracking|` +
    'shipment|parcel|package|account (?:number|no|#)|customer (?:number|no|id)|member(?:ship)? (?:number|no|id)|' +
    'phone|tel|telephone|call|fax|mobile|whatsapp|zip|postal|postcode|room|flight|seat|gate|version|sku|item|' +
    String.raw`part|serial|transaction|iban|bic|amount|total|price|balance|confirmation (?:number|no)|no\.|nr\.|№|` +
    'bestellung|bestellnummer|rechnung|rechnungsnummer|kundennummer|auftrag|sendungsnummer|pedido|factura|' +
    String.raw`commande|facture|ordine|fattura|заказ|заказа|счет|sipariş|pesanan|đơn hàng|hotline|helpline)(?![\p{L}])` +
    '|(?:注文番号|订单|訂單|주문|고객센터|客服电话|ऑर्डर|হেল্পলাইন|অর্ডার|الطلب|آرڈر|ہیلپ لائن|คำสั่งซื้อ|หมายเลขอ้างอิง)',
  'iu',
);

// "code" preceded by one of these is a coupon, a postcode or a QR code, not a verification code.
export const DECOY_PREFIX =
  /(?:promo|promotion|promotional|discount|coupon|voucher|gift|referral|invite|invitation|source|qr|area|country|postal|zip|post|swift|sort|bar|dial|error|status|product|tracking|reservation|booking|gutschein|rabatt|aktions|descuento|cupón|réduction|sconto)[\s-]*(?:code|codes|kod|código|codice)$/iu;

// The mail is about signing up or in: any code-shaped token in it is a little more likely the code.
export const MESSAGE_KEYWORD =
  /verif|confirm|bestätig|सत्यापन|ओटीपी|যাচাই|ওটিপি|تحقق|تصدیق|ยืนยัน|รหัส|xác minh|doğrulama|verifikasi|activat|aktivier|one[- ]time|otp|passcode|2fa|two[- ]factor|sign[- ]?in|log[- ]?in|anmeld|código|codigo|vérif|connexion|codice|accesso|weryfik|kod|код|подтвержд|認証|確認|验证|登录|인증|security code|\bcode\b/iu;

// "Use 937402 to verify", "Enter 4821 to sign in": an imperative before and a purpose after.
export const USE_BEFORE =
  /(?:use|enter|type|input|utilisez|usa|use o|ingresa|introduce|gib|verwende|nutze|wpisz|введите)\s*$/iu;
export const PURPOSE_AFTER =
  /^\s*(?:to|para|pour|per|um|aby|чтобы)\s+(?:\p{L}+\s+){0,2}(?:verif|confirm|sign|log|complet|finish|activat|continu|bestätig|verific|confirm|vérif|weryf)/iu;

// A coupon line: "10% off", "discount", "at checkout".
export const OFFER_LINE = /%|\boff\b|discount|coupon|at checkout|rabatt|descuento|réduction|sconto|gutschein/iu;

// Whole words only: "Driver: 0151 ..." is no "drive", "Vianney" no "via".
const STREET =
  /\b(?:street|st\.|avenue|ave|road|rd\.|blvd|boulevard|lane|drive|suite|ste\.|floor|p\.?\s?o\.?\s?box|straße|strasse|str\.|platz|allee|calle|avenida|rue|via|piazza|ul\.)(?!\p{L})/iu;

/**
 * True when the token between `before` and `after` (its line, cut to ~50 chars either side) reads
 * like part of a postal address or an offer: a house number, a zip code, a coupon.
 */
export function isDecoyContext(before: string, after: string): boolean {
  const near = `${before.slice(-50)} ${after.slice(0, 30)}`;
  if (STREET.test(near) || OFFER_LINE.test(`${before.slice(-40)} ${after.slice(0, 40)}`)) return true;
  if (/\b[A-Z]{2},?\s+$/.test(before)) return true; // "Springfield, IL 62704"
  return /^\s+\p{Lu}\p{Ll}+/u.test(after) && /,/.test(near); // "10115 Berlin, Germany"
}

// Decoy shapes, masked before codes are looked for. Order matters: URLs and e-mail addresses first,
// so their digits cannot be taken for dates or phone numbers.
//
// Every pattern here runs over up to 32 KB of text with no spaces in it (CJK prose, a base64 blob), and
// over the whole subject, so each must be linear: a repeated class followed by something that can fail
// is only tried where a run of that class starts (the lookbehind on the same class). Without it, every
// position of a run scans to the run's end and fails: 32 KB of kanji took 17 s in the e-mail pattern.
// (Long ASCII runs are blanked by the 25+ pattern before the number patterns see them; those are made
// linear all the same, so that no order of the list can bring the quadratic back.)
const MASKS: RegExp[] = [
  /\b(?:https?:\/\/|www\.|mailto:)\S+/giu, // URLs
  /(?<![\p{L}\p{N}._%+-])[\p{L}\p{N}._%+-]+@[\p{L}\p{N}.-]+\.\p{L}{2,}/giu, // e-mail addresses
  /\[\d{1,3}\]/g, // link references from renderBody (a bracketed 4+ digit number may be a code)
  /[\x21-\x7e]{25,}/g, // wrapped URL pieces, base64, tracking ids (ASCII: CJK prose has no spaces)
  /#[0-9a-f]{3,8}\b/giu, // CSS colours and "#123456" order numbers
  /\b\d{4}-\d{1,2}-\d{1,2}\b|\b\d{1,2}[./-]\d{1,2}[./-]\d{2,4}\b/gu, // dates
  /\b\d{1,2}:\d{2}(?::\d{2})?(?:\s?[ap]\.?m\.?)?/giu, // times
  // prices: a run of digits and separators (masked whole) before or after a currency
  /[$€£¥₹]\s?\d[\d.,]*|(?<![\d.,])[.,]*\d[\d.,]*\s?(?:€|eur|usd|gbp|chf|\$|kr|zł|руб|円|元)(?![\p{L}])/giu,
  /(?<![\d.,])[\d.,]*\d\s?%/gu, // percentages: the run of digits and separators before a %
  /(?<!\d)\d+(?:[.,]\d+)+/gu, // grouped and decimal numbers: 1,299 1.299,00 12.99
  /\b\d{3}-\d{4}\b/g, // local phone numbers: 555-0100 (a dashed code is 3-3 or 4-4)
];

// Runs of digit groups: a phone number when long (9+ digits) or written like one (+, parentheses).
// (Linear as it is: the match is the longest one from its start, so no start inside it is tried.)
const PHONE = /(?<![\p{L}\p{N}])(?:\+|00)?\(?\d[\d() ./-]{5,}\d(?![\p{L}\p{N}])/gu;

const spaces = (s: string): string => s.replace(/[^\n]/g, ' ');

/** Masks decoy shapes in `s` with spaces, keeping its length and line breaks. */
export function blank(s: string): string {
  let out = s;
  for (const re of MASKS) out = out.replace(re, spaces);
  return out.replace(PHONE, (m) => {
    const digits = m.replace(/\D/g, '').length;
    return digits >= 9 || /^(?:\+|00)/.test(m) || /\(\d{1,5}\)/.test(m) ? spaces(m) : m;
  });
}

const CJK_END = /[\u3000-\u9fff\uac00-\ud7af\uff00-\uffef]$/u;
const CJK_START = /^[\u3000-\u9fff\uac00-\ud7af\uff00-\uffef]/u;

/**
 * Undoes the viewer's word wrap, so that a zip code pushed to the next line stays beside its state
 * and a wrapped phone number stays whole. renderBody wraps greedily at some width W: a line was
 * broken there when the next line's first word would not have fitted after it. W is taken as the
 * widest line; texts narrower than 20 columns are left alone (they were not wrapped to speak of).
 */
export function unwrap(text: string): string {
  const lines = text.split('\n');
  const widths = lines.map(textWidth);
  // A loop, not Math.max(...widths): spreading 100,000+ lines overflows the stack.
  let w = 0;
  for (const width of widths) if (width > w) w = width;
  if (w < 20 || lines.length < 2) return text;
  let out = lines[0] ?? '';
  for (let i = 1; i < lines.length; i++) {
    const prev = lines[i - 1] ?? '';
    const line = lines[i] ?? '';
    const first = line.trimStart().split(' ')[0] ?? '';
    // A line ending a sentence is taken as a real break: the widest line of an unwrapped text
    // always "overflows" by this test, and joining a code line to the address below it would hurt.
    const wrapped =
      prev.trim() !== '' &&
      first !== '' &&
      !/[.!?:。！？：]$/u.test(prev) &&
      (widths[i - 1] ?? 0) + 1 + textWidth(first) > w;
    out += wrapped ? (CJK_END.test(prev) && CJK_START.test(line) ? '' : ' ') + line.trimStart() : `\n${line}`;
  }
  return out;
}

/** The rendered body without its link list, unwrapped, with decoy shapes masked. */
export function prepareText(text: string): string {
  const list = text.lastIndexOf('\n\nLinks:\n[1] ');
  return blank(unwrap(list >= 0 ? text.slice(0, list) : text));
}
