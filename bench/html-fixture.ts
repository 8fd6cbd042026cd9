/**
 * Generates realistic large HTML mail: the nested layout tables, inline styles, tracking images,
 * buttons and link-heavy footers of a marketing newsletter, repeated until the target size.
 * Deterministic (seeded), so two runs measure the same bytes.
 */

const WORDS = (
  'the your account order new offer summer sale free shipping members only limited time discover ' +
  'collection style home garden kitchen electronics deals week best sellers recommended for you ' +
  'verify confirm update privacy settings newsletter unsubscribe community stories read more ' +
  'Grüße café naïve 日本語 テキスト 한국어 emoji 🎉 price €12.99 save 20% today only'
).split(' ');

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 0x100000000;
  };
}

/** One newsletter "story" block: a layout table with an image, a heading, a paragraph and a button. */
function story(next: () => number, i: number): string {
  const words = (n: number) =>
    Array.from({ length: n }, () => WORDS[Math.floor(next() * WORDS.length)] as string).join(' ');
  return `
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="background-color:#ffffff;border-collapse:collapse;mso-table-lspace:0pt;mso-table-rspace:0pt">
  <tr>
    <td align="center" valign="top" style="padding:24px 32px 8px 32px;font-family:Helvetica,Arial,sans-serif">
      <a href="https://shop.example.com/p/${i}?utm_source=newsletter&amp;utm_medium=email&amp;utm_campaign=summer" target="_blank" style="text-decoration:none">
        <img src="https://cdn.example.com/img/${i}.jpg" width="536" height="300" alt="${words(3)}" style="display:block;border:0;outline:none">
      </a>
    </td>
  </tr>
  <tr>
    <td style="padding:0 32px;font-family:Helvetica,Arial,sans-serif;font-size:22px;line-height:28px;color:#111111">
      <h2 style="margin:0;font-size:22px">${words(6)}</h2>
      <p style="margin:12px 0;font-size:15px;line-height:22px;color:#444444">${words(60)} &amp; ${words(20)} &nbsp;&mdash; ${words(30)}</p>
      <ul><li>${words(8)}</li><li>${words(8)}</li><li>${words(8)}</li></ul>
      <table role="presentation" cellpadding="0" cellspacing="0" border="0"><tr>
        <td bgcolor="#0a66c2" style="border-radius:4px"><a href="https://shop.example.com/cta/${i}?token=${Math.floor(next() * 1e12).toString(36)}" style="display:inline-block;padding:12px 24px;color:#ffffff;font-weight:bold;text-decoration:none">${words(2)}</a></td>
      </tr></table>
    </td>
  </tr>
</table>`;
}

const HEAD = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Newsletter</title>
<style type="text/css">body{margin:0;padding:0} .btn{color:#fff} @media only screen and (max-width:600px){.col{width:100%!important}}</style>
<script>window.track && track('open')</script></head><body style="margin:0;padding:0;background:#f4f4f4">
<div style="display:none;max-height:0;overflow:hidden">Preheader text you will not see</div>
<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td align="center"><table width="600">`;

const FOOT = `</table></td></tr></table>
<p style="font-size:11px;color:#999"><a href="https://shop.example.com/unsubscribe?u=123">Unsubscribe</a> |
<a href="https://shop.example.com/privacy">Privacy</a> | Example Shop, 1 Market St, Springfield 12345</p>
<img src="https://track.example.com/open.gif?u=123" width="1" height="1" alt=""></body></html>`;

/** HTML of about `bytes` UTF-8 bytes. */
export function newsletterHtml(bytes: number, seed = 42): string {
  const next = rng(seed);
  const parts = [HEAD];
  let size = Buffer.byteLength(HEAD) + Buffer.byteLength(FOOT);
  for (let i = 0; size < bytes; i++) {
    const s = story(next, i);
    parts.push(s);
    size += Buffer.byteLength(s);
  }
  parts.push(FOOT);
  return parts.join('');
}
