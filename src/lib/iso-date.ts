/**
 * ISO 8601 dates as callers write them: a date, with a time and a zone or
 * without; not whatever `Date()` makes of "1". A year past 9999 in the
 * expanded form `toISOString()` writes (`+275760-09-13T00:00:00.000Z`), so
 * a time litejobs answers with is one it takes back.
 */
const ISO_8601 = /^([+-]\d{6}|\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/** An ISO 8601 date that names a real day and time: Date() would roll 2020-02-31 over to March 2. */
export function isoDate(text: string): Date | undefined {
  const m = ISO_8601.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour = 0, minute = 0, second = 0] = m.slice(1).map((part) => (part === undefined ? undefined : Number(part))) as number[];
  const daysInMonth = new Date(Date.UTC(year!, month!, 0)).getUTCDate();
  if (month! < 1 || month! > 12 || day! < 1 || day! > daysInMonth || hour > 23 || minute > 59 || second > 59) return undefined;
  return new Date(text);
}

