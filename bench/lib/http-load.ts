/**
 * HTTP load for the http scenario: autocannon 8, driven from this process
 * against a server in another one, and the checks that decide whether a
 * measurement counts. Only 2xx answers are counted; any other status, a
 * socket error or a timeout makes the measurement invalid.
 */
import { createRequire } from 'node:module';
import { withTimeout } from './stats.js';

const require = createRequire(import.meta.url);

/** The fields of autocannon 8's result the harness reads (it ships no types). */
export interface AutocannonResult {
  /** Seconds from the first request to the tick that stopped the run. */
  duration: number;
  errors: number;
  timeouts: number;
  mismatches: number;
  non2xx: number;
  '2xx': number;
  statusCodeStats: Record<string, { count: number }>;
  /** Milliseconds, whole (autocannon's histogram); 2xx answers only. */
  latency: { p50: number; p99: number };
  requests: { sent: number };
}

interface AutocannonOptions {
  url: string;
  method: 'POST';
  headers: Record<string, string>;
  body: string;
  duration: number;
  connections: number;
  pipelining: number;
}

/** A run: a promise of its result that can also be stopped early. */
type Run = Promise<AutocannonResult> & { stop(): void };
const autocannon = require('autocannon') as (options: AutocannonOptions) => Run;

export interface LoadOptions {
  url: string;
  body: string;
  /** autocannon stops on its once-a-second tick: whole seconds. */
  seconds: number;
  connections: number;
  pipelining: number;
}

export interface LoadResult {
  /** 2xx answers read by the client. */
  acknowledged: number;
  /** Acknowledged requests per second of the run. */
  rate: number;
  p50: number;
  p99: number;
  seconds: number;
  sent: number;
  /** Requests still waiting for their answer when the run stopped and closed its sockets. */
  unanswered: number;
  /** Why this measurement does not count; empty when it does. */
  problems: string[];
}

/** What is wrong with a run: every answer must be 2xx, with no socket errors and no timeouts. */
export function loadProblems(r: AutocannonResult): string[] {
  const problems: string[] = [];
  if (r.non2xx > 0) {
    const codes = Object.entries(r.statusCodeStats)
      .filter(([code]) => !code.startsWith('2'))
      .map(([code, s]) => `${code}×${s.count}`);
    problems.push(`${r.non2xx} non-2xx answer(s) (${codes.join(', ')})`);
  }
  if (r.errors > 0) problems.push(`${r.errors} request error(s), ${r.timeouts} of them timeouts`);
  if (r.mismatches > 0) problems.push(`${r.mismatches} body mismatch(es)`);
  if (r['2xx'] === 0) problems.push('no 2xx answer at all');
  return problems;
}

export function toLoadResult(r: AutocannonResult): LoadResult {
  const answered = r['2xx'] + r.non2xx;
  return {
    acknowledged: r['2xx'],
    rate: r['2xx'] / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    seconds: r.duration,
    sent: r.requests.sent,
    unanswered: Math.max(0, r.requests.sent - answered),
    problems: loadProblems(r),
  };
}

/**
 * Acknowledged = stored. The run stops on a timer and closes its sockets with
 * one request in flight on each: those may still commit although their answer
 * is never read. So the store must hold every acknowledged job, and at most
 * the unanswered requests besides.
 */
export function storedProblems(stored: number, load: Pick<LoadResult, 'acknowledged' | 'unanswered'>): string[] {
  if (stored < load.acknowledged) return [`${load.acknowledged - stored} acknowledged job(s) missing: ${stored} stored, ${load.acknowledged} 2xx answers`];
  if (stored > load.acknowledged + load.unanswered) {
    return [`${stored - load.acknowledged - load.unanswered} job(s) stored that no request accounts for: ${stored} stored, ${load.acknowledged} 2xx answers, ${load.unanswered} unanswered`];
  }
  return [];
}

/** POSTs `body` as JSON on `connections` keep-alive connections for `seconds`. */
export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  const run = autocannon({
    url: o.url,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: o.body,
    duration: o.seconds,
    connections: o.connections,
    pipelining: o.pipelining,
  });
  try {
    // autocannon's own request timeout is 10 s; this bounds the run as a whole.
    return toLoadResult(await withTimeout(run, (o.seconds + 30) * 1000, `autocannon ${o.url}`));
  } catch (err) {
    run.stop();
    throw err;
  }
}
