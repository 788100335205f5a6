/** Paused job names, as every store records them (see Store.setPaused). */

/** The name that stands for the whole queue (a job name is never empty). */
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
}

export function pausedView(paused: readonly string[]): PausedView {
  const names = paused.filter((name) => name !== WHOLE_QUEUE).sort();
  return { all: names.length < paused.length, names };
}
