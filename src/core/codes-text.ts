/**
 * The vocabulary of codes.ts and codes-links.ts: labels that announce a code, labels that announce a
 * decoy, and the masking of decoy shapes (dates, times, prices, phone numbers, URLs ...) before codes
 * are looked for. Masking replaces a span with spaces of the same length, so positions and line
 * breaks stay where they were.
 */

// Words that put a code right after (or before) them. "code" may end a compound (Bestätigungscode,
// Sicherheitscode, passcode); short words need a boundary on both sides (PIN, not "spinning").
export const CODE_LABEL = new RegExp(
  String.raw`(?<![\p{L}])(?:otp|pin|tan|mtan|2fa|passcode|password|passwort|kennwort|one-time code|verification code)(?![\p{L}])` +
    String.raw`|(?:code|codes|codigo|código|codice|kod|kodu|koden|код|кода|коду|κωδικός)(?![\p{L}])` +
    String.raw`|(?:コード|验证码|驗證碼|校验码|确认码|인증번호|인증 코드|認証番号|確認番号|暗証番号)`,
  'iu',
);

// Words that put a number that is NOT a verification code after them.
export const DECOY_LABEL = new RegExp(
  String.raw`(?<![\p{L}])(?:order|orders|order id|invoice|receipt|ticket|case|booking|reservation|reference|ref|tracking|` +
    String.raw`shipment|parcel|package|account (?:number|no|#)|customer (?:number|no|id)|member(?:ship)? (?:number|no|id)|` +
    String.raw`phone|tel|telephone|call|fax|mobile|whatsapp|zip|postal|postcode|room|flight|seat|gate|version|sku|item|` +
    String.raw`part|serial|transaction|iban|bic|amount|total|price|balance|confirmation (?:number|no)|no\.|nr\.|№|` +
    String.raw`bestellung|bestellnummer|rechnung|rechnungsnummer|kundennummer|auftrag|sendungsnummer|pedido|factura|` +
    String.raw`commande|facture|ordine|fattura|заказ|заказа|счет|注文番号|订单|주문)(?![\p{L}])`,
  'iu',
);

// "code" preceded by one of these is a coupon, a postcode or a QR code, not a verification code.
export const DECOY_PREFIX =
  /(?:promo|promotion|promotional|discount|coupon|voucher|gift|referral|invite|invitation|source|qr|area|country|postal|zip|post|swift|sort|bar|dial|error|status|product|tracking|reservation|booking|gutschein|rabatt|aktions|descuento|cupón|réduction|sconto)[\s-]*(?:code|codes|kod|código|codice)$/iu;

// The mail is about signing up or in: any code-shaped token in it is a little more likely the code.
export const MESSAGE_KEYWORD =
  /verif|confirm|bestätig|activat|aktivier|one[- ]time|otp|passcode|2fa|two[- ]factor|sign[- ]?in|log[- ]?in|anmeld|código|codigo|vérif|connexion|codice|accesso|weryfik|kod|код|подтвержд|認証|確認|验证|登录|인증|security code|\bcode\b/iu;

// A coupon line: "10% off", "discount", "at checkout".
export const OFFER_LINE = /%|\boff\b|discount|coupon|at checkout|rabatt|descuento|réduction|sconto|gutschein/iu;

const STREET =
  /\b(?:street|st\.|avenue|ave\b|road|rd\.|blvd|boulevard|lane|drive|suite|ste\.|floor|p\.?\s?o\.?\s?box|straße|strasse|str\.|platz|allee|calle|avenida|rue|via|piazza|ul\.)/iu;

/** True for a line that reads like a postal address, whose numbers are house numbers and zip codes. */
export function isAddressLine(line: string): boolean {
  if (STREET.test(line)) return true;
  if (/\b[A-Z]{2}\s+\d{5}(?:-\d{4})?\b/.test(line)) return true; // "Springfield, IL 62704"
  return line.includes(',') && /(?<!\S)\d{4,5}\s+\p{Lu}\p{Ll}+/u.test(line); // "10115 Berlin, Germany"
}

// Decoy shapes, masked before codes are looked for. Order matters: URLs and e-mail addresses first,
// so their digits cannot be taken for dates or phone numbers.
const MASKS: RegExp[] = [
  /\b(?:https?:\/\/|www\.|mailto:)\S+/giu, // URLs
  /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}.-]+\.\p{L}{2,}/giu, // e-mail addresses
  /\[\d+\]/g, // link references from renderBody
  /\S{25,}/gu, // wrapped URL pieces, base64, tracking ids
  /#[0-9a-f]{3,8}\b/giu, // CSS colours and "#123456" order numbers
  /\b\d{4}-\d{1,2}-\d{1,2}\b|\b\d{1,2}[./-]\d{1,2}[./-]\d{2,4}\b/gu, // dates
  /\b\d{1,2}:\d{2}(?::\d{2})?(?:\s?[ap]\.?m\.?)?/giu, // times
  /[$€£¥₹]\s?\d[\d.,]*|\d[\d.,]*\s?(?:€|eur|usd|gbp|chf|\$|kr|zł|руб|円|元)(?![\p{L}])/giu, // prices
  /\d+(?:[.,]\d+)*\s?%/gu, // percentages
  /\d+(?:[.,]\d+)+/gu, // grouped and decimal numbers: 1,299 1.299,00 12.99
  /\b\d{3}-\d{4}\b/g, // local phone numbers: 555-0100 (a dashed code is 3-3 or 4-4)
];

// Runs of digit groups: a phone number when long (9+ digits) or written like one (+, parentheses).
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

/** The rendered body without its link list, with decoy shapes masked. */
export function prepareText(text: string): string {
  const list = text.lastIndexOf('\n\nLinks:\n[1] ');
  return blank(list >= 0 ? text.slice(0, list) : text);
}
