/**
 * The order and keyset cursor of each state's page, shared by both stores:
 * a store says only which rows (its FROM … WHERE for the state, along the
 * index it keeps for that order) and the plan says how to walk them.
 *
 *   pending      next to run first       priority DESC, run_at, id
 *   processing   lease running out first locked_until, id
 *   finished     most recently first     updated_at DESC, id DESC
 *   the rest     name, then due first    name, run_at, id
 */
import type { BrowsePlan } from './browse-rows.js';

/** A plan that reads one run along one index. */
function single(from: string, order: string, past: string, keys: string[]): BrowsePlan {
  return { keys, past, segments: (after) => [{ from: after ? `${from} AND ${past}` : from, order }] };
}

export const PENDING_ORDER = 'priority DESC, run_at, id';

/** Pending jobs in claim order. Mixed directions defeat a row-value seek: the rest of the cursor's priority, then the lower ones, each a seek. */
export function pendingPlan(from: string): BrowsePlan {
  return {
    keys: ['priority', 'run_at', 'id'],
    past: '(priority < @k0 OR (priority = @k0 AND (run_at, id) > (@k1, @k2)))',
    segments: (after) =>
      after
        ? [
            { from: `${from} AND priority = @k0 AND (run_at, id) > (@k1, @k2)`, order: PENDING_ORDER },
            { from: `${from} AND priority < @k0`, order: PENDING_ORDER },
          ]
        : [{ from, order: PENDING_ORDER }],
  };
}

/** Running jobs, lease running out first. `order`: the store's spelling of "a missing lease end sorts first". */
export const processingPlan = (from: string, order = 'locked_until, id'): BrowsePlan => single(from, order, '(locked_until, id) > (@k0, @k1)', ['locked_until', 'id']);

/** Finished jobs, most recently finished first. */
export const finishedPlan = (from: string): BrowsePlan => single(from, 'updated_at DESC, id DESC', '(updated_at, id) < (@k0, @k1)', ['updated_at', 'id']);

/** Jobs waiting in any other state, by name, then due first; with a name, the index is already in due order within it. */
export function waitingPlan(from: string, name: string | undefined): BrowsePlan {
  if (name !== undefined) return single(`${from} AND name = @name`, 'name, run_at, id', '(run_at, id) > (@k0, @k1)', ['run_at', 'id']);
  return single(from, 'name, run_at, id', '(name, run_at, id) > (@k0, @k1, @k2)', ['name', 'run_at', 'id']);
}

/** Every state but these is a waiting one (the browse's "the rest"), as a condition on `state`. */
export const WAITING_STATES = 'state <> {{pending}} AND state <> {{processing}} AND state <> {{completed}} AND state <> {{dead}} AND state <> {{cancelled}}';
