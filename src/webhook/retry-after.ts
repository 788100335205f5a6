/**
 * `Retry-After` (RFC 9110 §10.2.3): either a number of seconds or an HTTP
 * date. Pure: the caller passes the current time.
 */

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH = '(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)';
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';

// The three forms an HTTP date may take. The weekday is not checked against the date.
/** IMF-fixdate, the preferred form: `Sun, 06 Nov 1994 08:49:37 GMT`. */
const IMF_FIXDATE = new RegExp(`^[a-z]{3}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`, 'i');
/** The obsolete RFC 850 form: `Sunday, 06-Nov-94 08:49:37 GMT`. */
const RFC_850 = new RegExp(`^[a-z]{6,9}, (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`, 'i');
/** The obsolete asctime form (always GMT): `Sun Nov  6 08:49:37 1994`. */
const ASCTIME = new RegExp(`^[a-z]{3} ${MONTH} ( \\d|\\d{2}) ${TIME} (\\d{4})$`, 'i');

/**
 * The wait a `Retry-After` value asks for, in ms from `now` (ms since the
 * epoch): seconds × 1000, or the time until the date (0 for a date in the
 * past). `undefined` for a value that is neither.
 *
 * @example
 * parseRetryAfter('120', Date.now()); // 120000
 * parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', Date.parse('2015-10-21T07:27:00Z')); // 60000
 * parseRetryAfter('soon', Date.now()); // undefined
 */
export function parseRetryAfter(value: string, now: number): number | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  // Digits only: no sign, no fraction (the grammar is 1*DIGIT).
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1000, Number.MAX_SAFE_INTEGER);
  const at = parseHttpDate(text, now);
  return at === undefined ? undefined : Math.max(0, at - now);
}

/** An HTTP date in ms since the epoch, or `undefined`. */
export function parseHttpDate(text: string, now: number): number | undefined {
  let m = IMF_FIXDATE.exec(text);
  if (m) return utc(Number(m[3]), m[2]!, Number(m[1]), m[4]!, m[5]!, m[6]!);
  m = RFC_850.exec(text);
  if (m) return utc(fullYear(Number(m[3]), now), m[2]!, Number(m[1]), m[4]!, m[5]!, m[6]!);
  m = ASCTIME.exec(text);
  if (m) return utc(Number(m[6]), m[1]!, Number(m[2]!.trim()), m[3]!, m[4]!, m[5]!);
  return undefined;
}

/** RFC 9110: a two-digit year more than 50 years in the future is in the past century. */
function fullYear(twoDigits: number, now: number): number {
  const thisYear = new Date(now).getUTCFullYear();
  const year = Math.floor(thisYear / 100) * 100 + twoDigits;
  return year > thisYear + 50 ? year - 100 : year;
}

/** The instant, or `undefined` when a field is out of range (31 Feb, 25:00). */
function utc(year: number, month: string, day: number, h: string, min: string, s: string): number | undefined {
  const monthIndex = MONTHS.indexOf(month.toLowerCase());
  const [hours, minutes, seconds] = [Number(h), Number(min), Number(s)];
  if (hours > 23 || minutes > 59 || seconds > 60) return undefined;
  // A leap second (:60) is read as :59, so it does not roll the date over.
  const date = new Date(Date.UTC(year, monthIndex, day, hours, minutes, Math.min(seconds, 59)));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== monthIndex || date.getUTCDate() !== day) return undefined;
  return date.getTime();
}
