/**
 * The one spec of what a move writes (sql/transition-set.sql), for both
 * stores: each binds the move's values its own way.
 */
import { readFileSync } from 'node:fs';
import { JobEventType } from '../../machines/job.machine.js';
import { fillNames } from './sql-text.js';

/** The values a move writes (TransitionRequest's fields, by their names in the spec). */
export const TRANSITION_VALUES = ['to', 'attempts', 'lastError', 'ctx', 'runAt', 'result', 'uniqueNeed', 'keepsHold', 'at'] as const;
export type TransitionValue = (typeof TRANSITION_VALUES)[number];

let spec: string | undefined;

/** The SET list, each `:name` bound as `bind(name)` says; `j` names the job's row. */
export function transitionSet(bind: (name: TransitionValue) => string): string {
  spec ??= fillNames(readFileSync(new URL('./sql/transition-set.sql', import.meta.url), 'utf8').replace(/^--[^\n]*\n/gm, '').trim(), 'transition-set.sql');
  return spec.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    if (!(TRANSITION_VALUES as readonly string[]).includes(name)) throw new TypeError(`transition-set.sql: :${name} is not a value of a move`);
    return bind(name as TransitionValue);
  });
}

/**
 * A move that starts the job afresh (`job.rerun`: a completed or cancelled
 * job run again) also deletes its durable steps, in the same transaction:
 * the new run does its work again instead of replaying the last run's, and a
 * webhook delivery gets a new message id. A retry (`job.retry` of a dead job,
 * an attempt after a failure) keeps them: it carries on where the run stopped.
 */
export const startsFreshRun = (event: string): boolean => event === JobEventType.rerun;
