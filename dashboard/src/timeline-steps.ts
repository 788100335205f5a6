/**
 * Where a job's durable steps go in its timeline: under the move into
 * `processing` that started the attempt they completed in (the last one at
 * or before the step). Times alone cannot order a step and the transition
 * that ends its attempt when both fall in the same millisecond; steps only
 * complete while the job is processing, so the claim is where they belong.
 * A step with no such move before it (a history kept only in part) goes
 * under the last transition before it, or in front of them all.
 * Imports nothing: the unit tests load it as it is.
 */

type Timed = { at: number | string };
type Row = Timed & { to: string };

const ms = (time: number | string): number => {
  const t = typeof time === 'number' ? time : Date.parse(time);
  return Number.isNaN(t) ? 0 : t;
};

export function stepsByTransition<S extends Timed>(history: readonly Row[], steps: readonly S[], running = 'processing'): { before: S[]; after: S[][] } {
  const after = history.map((): S[] => []);
  const before: S[] = [];
  for (const s of steps) {
    const at = ms(s.at);
    let last = history.length - 1;
    while (last >= 0 && ms(history[last]!.at) > at) last--;
    let claim = last;
    while (claim >= 0 && history[claim]!.to !== running) claim--;
    const i = claim >= 0 ? claim : last;
    (i < 0 ? before : after[i]!).push(s);
  }
  return { before, after };
}
