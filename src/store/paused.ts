/** Paused job names, as every store records them (see Store.setPaused). */

/** The name that stands for the whole queue (a job name is never empty). */
export const WHOLE_QUEUE = '';

/** The names not paused; none when the whole queue is paused. */
export function withoutPaused(names: readonly string[], paused: readonly string[]): readonly string[] {
  if (paused.length === 0) return names;
  if (paused.includes(WHOLE_QUEUE)) return [];
  return names.filter((name) => !paused.includes(name));
}
