/**
 * The model both stores' browse tests page against: random jobs over every
 * state (few distinct times, so ties fall to the id), the order each state
 * documents, and payload searches with what each must match.
 */
import fc from 'fast-check';

export const STATES = ['pending', 'processing', 'completed', 'dead', 'cancelled', 'failed', 'quarantined'] as const;
const NAMES = ['a', 'b', 'c'];
const PLANS = ['Pro', 'basic', 'pro-max'];

export interface Row {
  name: string;
  state: (typeof STATES)[number];
  priority: number;
  runAt: number;
  updatedAt: number;
  customer: number;
  plan: string;
  /** SQLite: a pending job committed on its own, not yet in the claim index. */
  indexed: boolean;
}

export const rowArbitrary = fc.record({
  name: fc.constantFrom(...NAMES),
  state: fc.constantFrom(...STATES),
  priority: fc.constantFrom(0, 0, 5, -3),
  runAt: fc.integer({ min: 1, max: 6 }),
  updatedAt: fc.integer({ min: 1, max: 6 }),
  customer: fc.integer({ min: 0, max: 4 }),
  plan: fc.constantFrom(...PLANS),
  indexed: fc.boolean(),
});

export const nameArbitrary = fc.option(fc.constantFrom(...NAMES), { nil: undefined });

/** The order each state documents, as a comparator over the table's rows (processing jobs: locked_until = run_at + 1000). */
export function reference(state: string, byName: boolean): (x: Row & { id: number }, y: Row & { id: number }) => number {
  if (state === 'pending') return (x, y) => y.priority - x.priority || x.runAt - y.runAt || x.id - y.id;
  if (state === 'processing') return (x, y) => x.runAt - y.runAt || x.id - y.id;
  if (['completed', 'dead', 'cancelled'].includes(state)) return (x, y) => y.updatedAt - x.updatedAt || y.id - x.id;
  return byName ? (x, y) => x.runAt - y.runAt || x.id - y.id : (x, y) => x.name.localeCompare(y.name) || x.runAt - y.runAt || x.id - y.id;
}

export const SEARCHES: Array<[string, (r: Row) => boolean]> = [
  ['', () => true],
  ['payload.customer = 2', (r) => r.customer === 2],
  ['payload.customer >= 3', (r) => r.customer >= 3],
  ['payload.plan ~ PRO', (r) => r.plan.toLowerCase().includes('pro')],
  ['payload.plan != basic and payload.customer < 2', (r) => r.plan !== 'basic' && r.customer < 2],
  ['payload.missing = null', () => true],
];
