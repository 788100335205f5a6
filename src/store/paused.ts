/** Paused job names, as every store records them (see Store.setPaused). */

/** The name that stands for the whole queue (a job name is never empty). */
import { listedNames } from '../lib/name-bound.js';
export const WHOLE_QUEUE = '';

/** The names not paused; none when the whole queue is paused. */
export function withoutPaused(names: readonly string[], paused: readonly string[]): readonly string[] {
  if (paused.length === 0) return names;
  if (paused.includes(WHOLE_QUEUE)) return [];
  return names.filter((name) => !paused.includes(name));
}

/** What is paused, as the dashboard shows it: the whole queue, and the names (sorted). */
export interface PausedView {
  all: boolean;
  names: string[];
  /** Paused names beyond those listed (lib/name-bound.ts), when there are more. */
  more?: number;
}

/** At most NAMES_LISTED names: `own` (the queue's job names) first, then the others in order. */
export function pausedView(paused: readonly string[], own?: ReadonlySet<string>): PausedView {
  const names = paused.filter((name) => name !== WHOLE_QUEUE).sort();
  const all = names.length < paused.length;
  const listed = listedNames(new Map(names.map((name) => [name, 0])), own);
  if (listed === undefined) return { all, names };
  return { all, names: names.filter((name) => listed.has(name)), more: names.length - listed.size };
}
