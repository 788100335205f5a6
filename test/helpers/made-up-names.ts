/**
 * A queue holding jobs under many made-up names, as a caller with the token
 * could make them: one job of the queue's own `own`, then `made-000` …
 * `made-149`, two jobs each for the first 120 and one for the rest (so the
 * names with the most jobs are the first ones). Answers the made-up names.
 */
import type { Queue } from '../../src/index.js';

export const MADE_UP_JOBS = 1 + 2 * 120 + 30;

export async function makeUpNames(queue: Queue): Promise<string[]> {
  await queue.enqueue('own', {});
  const made = Array.from({ length: 150 }, (_, i) => `made-${String(i).padStart(3, '0')}`);
  await queue.enqueueMany(made.flatMap((name, i) => Array.from({ length: i < 120 ? 2 : 1 }, () => ({ name, payload: null }))));
  return made;
}
