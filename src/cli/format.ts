/** Text for people: aligned tables, durations, sizes, times. */

/**
 * Text safe to print to a terminal: control characters (an escape sequence
 * in a job's name, an error, a receiver's reason phrase could retitle the
 * window or clear the screen) are shown as `\x1b`-style escapes instead.
 */
export function printable(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are what it finds
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** Columns padded to their widest cell; the last column is not padded. Cells are made printable. */
export function table(header: readonly string[], cellRows: ReadonlyArray<readonly string[]>): string {
  const rows = cellRows.map((r) => r.map(printable));
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}

/** 850 ms, 1.2 s, 3 m 12 s, 2 h 5 m, 3 d 4 h. */
export function formatDuration(ms: number): string {
  // A time a Date cannot hold (a row written by hand) has no length to show.
  if (!Number.isFinite(ms)) return '?';
  const abs = Math.abs(ms);
  if (abs < 1000) return `${Math.round(ms)} ms`;
  if (abs < 60_000) return `${(ms / 1000).toFixed(abs < 10_000 ? 1 : 0)} s`;
  const parts: Array<[number, string]> = [
    [86_400_000, 'd'],
    [3_600_000, 'h'],
    [60_000, 'm'],
    [1000, 's'],
  ];
  const i = parts.findIndex(([unit]) => abs >= unit);
  const [big, bigName] = parts[i]!;
  const [small, smallName] = parts[i + 1]!;
  const whole = Math.floor(abs / big);
  const rest = Math.floor((abs - whole * big) / small);
  const sign = ms < 0 ? '-' : '';
  return rest === 0 ? `${sign}${whole} ${bigName}` : `${sign}${whole} ${bigName} ${rest} ${smallName}`;
}

/** What a date outside a Date's range reads as (a run time stored before run times were bounded). */
const NOT_A_DATE = 'not a date';

/** `in 5 s` or `3 m ago` relative to `now`. */
export function formatRelative(at: Date, now: number): string {
  if (Number.isNaN(at.getTime())) return NOT_A_DATE;
  // The last instant a Date holds: a wait for a message with no timeout.
  if (at.getTime() === 8.64e15) return 'never';
  const delta = at.getTime() - now;
  if (Math.abs(delta) < 1000) return 'now';
  return delta > 0 ? `in ${formatDuration(delta)}` : `${formatDuration(-delta)} ago`;
}

/** 2026-11-03 12:00:03.250Z: UTC, to the millisecond, readable. */
export function formatTime(at: Date): string {
  if (Number.isNaN(at.getTime())) return NOT_A_DATE;
  return at.toISOString().replace('T', ' ');
}

/** 512 B, 3.4 KiB, 12.0 MiB. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${units[unit]}`;
}

/** One JSON document, indented, on its own line. */
export function toJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
