/** Numbers, times and durations as the page prints them. */
import type { Time } from './types';

/** The last instant a Date holds: a time past it (a row written by hand) is shown as none. */
const MAX_DATE_MS = 8.64e15;

export function toMs(time: Time | null | undefined): number | undefined {
  if (time === null || time === undefined) return undefined;
  const ms = typeof time === 'number' ? time : Date.parse(time);
  return Number.isFinite(ms) && Math.abs(ms) <= MAX_DATE_MS ? ms : undefined;
}

const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });
export function count(n: number): string {
  return n < 10_000 ? String(n) : compact.format(n);
}

export function duration(ms: number): string {
  const abs = Math.abs(ms);
  if (abs < 1000) return `${Math.round(ms)} ms`;
  if (abs < 60_000) return `${(ms / 1000).toFixed(abs < 10_000 ? 1 : 0)} s`;
  if (abs < 3_600_000) return `${Math.floor(abs / 60_000)} min ${Math.round((abs % 60_000) / 1000)} s`;
  if (abs < 86_400_000) return `${Math.floor(abs / 3_600_000)} h ${Math.round((abs % 3_600_000) / 60_000)} min`;
  return `${(abs / 86_400_000).toFixed(1)} d`;
}

/** "3 s ago", "in 2 min": coarse, for tables. */
export function relative(time: Time | null | undefined, now = Date.now()): string {
  const ms = toMs(time);
  if (ms === undefined) return '–';
  // The last instant a Date holds: a wait for a message with no timeout.
  if (ms === MAX_DATE_MS) return 'never';
  const diff = ms - now;
  const abs = Math.abs(diff);
  let text: string;
  if (abs < 1000) return 'now';
  if (abs < 60_000) text = `${Math.round(abs / 1000)} s`;
  else if (abs < 3_600_000) text = `${Math.round(abs / 60_000)} min`;
  else if (abs < 86_400_000) text = `${Math.round(abs / 3_600_000)} h`;
  else text = `${Math.round(abs / 86_400_000)} d`;
  return diff < 0 ? `${text} ago` : `in ${text}`;
}

export function absolute(time: Time | null | undefined): string {
  const ms = toMs(time);
  return ms === undefined ? '–' : new Date(ms).toLocaleString();
}

/** A rate in jobs per second, as "/s" when busy and "/min" otherwise. */
export function rate(perSecond: number): string {
  if (perSecond <= 0) return '0/min';
  if (perSecond >= 1) return `${perSecond >= 10 ? Math.round(perSecond) : perSecond.toFixed(1)}/s`;
  const perMinute = perSecond * 60;
  return `${perMinute >= 10 ? Math.round(perMinute) : perMinute.toFixed(1)}/min`;
}

export function excerpt(text: string | null | undefined, max = 60): string {
  if (!text) return '';
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A progress value that is not a percentage, on one short line: `{"done":40,"of":200}`. */
export function progressLine(value: unknown): string {
  return excerpt(JSON.stringify(value), 60);
}
