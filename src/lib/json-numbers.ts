/**
 * Numbers a JSON text holds that JavaScript would change: `1e999` becomes
 * Infinity (stored as `null`), `12345678901234567891` becomes
 * `12345678901234567000`. A caller's JSON is refused rather than stored
 * changed without a word (a hook body forwarded to `deliverTo` is text, sent
 * on as it came).
 */

/**
 * A cheap look: a number with more than 15 significant digits (a double keeps
 * 15 exactly), the dot anywhere among them (`123456789.123456789`), or with
 * an exponent of three digits, may change; nothing else can.
 */
const MAY_CHANGE = /\d[\d.]{15,}|[eE][+-]?\d{3,}/;

/** The decimal value of a JSON number as digits and a power of ten, without leading or trailing zeros: '1.50e2' → '15e1'. */
function canonical(token: string): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(token)!;
  let digits = m[2]! + (m[3] ?? '');
  let exp = Number(m[4] ?? 0) - (m[3]?.length ?? 0);
  digits = digits.replace(/^0+/, '');
  if (digits === '') return '0';
  while (digits.endsWith('0')) {
    digits = digits.slice(0, -1);
    exp++;
  }
  return `${m[1]}${digits}e${exp}`;
}

/** The first number of `text` (a JSON text) that does not survive a round trip through a JavaScript number, or null. */
export function changedNumber(text: string): string | null {
  if (!MAY_CHANGE.test(text)) return null;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: skip to its closing quote.
      for (i++; i < n && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
      continue;
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let j = i + 1;
      while (j < n && /[\d.eE+-]/.test(text[j]!)) j++;
      const token = text.slice(i, j);
      i = j - 1;
      const value = Number(token);
      if (!Number.isFinite(value) || canonical(token) !== canonical(String(value))) return token;
    }
  }
  return null;
}

/** What a refusal of such a number says, the same from the API, a hook and the CLI (each adds what to do). */
export const numberNotKept = (token: string): string => `the number ${token.slice(0, 40)} cannot be kept exactly`;
