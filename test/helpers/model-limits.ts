/**
 * The model check's windows that processes on clocks of their own share
 * (test/property/engine.model.test.ts): a rate limit's starts,
 * RateLimitedError pauses and throttle windows, each judged on the
 * database's clock, which in the model is the base clock every process's
 * own clock is skewed from. A process that kept one of them on its own clock
 * would shorten it, in the database's time, by its skew.
 */
export interface LimitRules {
  /** The rate-limited name, and its rate. */
  name: string;
  max: number;
  perMs: number;
  /** The name whose global concurrency the model changes while it runs. */
  concurrent: string;
  /** Each throttle key's window length. */
  throttleMs: Readonly<Record<string, number>>;
}

export interface LimitLog {
  /** A run of `name` started at `at` (database time). */
  started(name: string, at: number): void;
  /** A pause of `name` committed at `at`, ending at `until` (database time). */
  paused(name: string, at: number, until: number): void;
  /** A throttled enqueue of `key` created job `id` at `at` (database time). */
  created(key: string, at: number, id: number): void;
  /** A claim of the concurrency-limited name took the job it leased under `token` while its process held `limit` as the name's global concurrency. */
  claimedUnder(token: string, limit: number): void;
  /**
   * Claims past the global concurrency they were made under: the history in
   * id order (a claim's row comes after every move it could see), the jobs of
   * the limited name in processing counted as each claim lands.
   */
  concurrencyViolations(history: ReadonlyArray<{ id: number; job_id: number; from_state: string | null; to_state: string; event: string; lease_token: string | null }>, nameOf: ReadonlyMap<number, string>): string[];
  /**
   * `exists`: the jobs the database holds now, or whose outcome it keeps. A window lives in its job's row: a
   * caller's remove or clean ends it, but retention's deletes (those that keep the outcome among them) wait for it.
   */
  violations(exists: ReadonlySet<number>): string[];
}

export function createLimitLog(rules: LimitRules): LimitLog {
  const starts = new Map<string, number[]>();
  const pauses: Array<{ name: string; at: number; until: number }> = [];
  const creations = new Map<string, Array<{ at: number; id: number }>>();
  const claimedUnder = new Map<string, number>();
  const push = (m: Map<string, number[]>, key: string, at: number) => m.set(key, [...(m.get(key) ?? []), at]);
  return {
    started: (name, at) => void push(starts, name, at),
    paused: (name, at, until) => void pauses.push({ name, at, until }),
    created: (key, at, id) => void creations.set(key, [...(creations.get(key) ?? []), { at, id }]),
    claimedUnder: (token, limit) => void claimedUnder.set(token, limit),
    concurrencyViolations(history, nameOf) {
      const out: string[] = [];
      const running = new Set<number>();
      for (const h of history) {
        if (nameOf.get(Number(h.job_id)) !== rules.concurrent || h.event === 'job.progress' || h.event === 'job.publish') continue;
        const id = Number(h.job_id);
        if (h.to_state === 'processing' && h.from_state !== 'processing') running.add(id);
        else if (h.from_state === 'processing' && h.to_state !== 'processing') running.delete(id);
        const limit = h.event === 'job.claim' && h.lease_token !== null ? claimedUnder.get(h.lease_token) : undefined;
        if (limit !== undefined && running.size > limit) out.push(`${rules.concurrent}: claim #${h.id} of job ${id} made ${running.size} run at once, under a global concurrency of ${limit}`);
      }
      return out;
    },
    violations(exists) {
      const out: string[] = [];
      const rated = [...(starts.get(rules.name) ?? [])].sort((a, b) => a - b);
      for (let i = 0; i + rules.max < rated.length; i++) {
        const span = rated[i + rules.max]! - rated[i]!;
        if (span < rules.perMs) out.push(`${rules.name}: ${rules.max + 1} starts within ${span} ms (at ${rated.slice(i, i + rules.max + 1).join(', ')}), rate ${rules.max} per ${rules.perMs} ms`);
      }
      // A start in a later round than the pause's commit (the model's time moves between rounds only), before its end.
      for (const p of pauses) {
        for (const at of starts.get(p.name) ?? []) if (at > p.at && at < p.until) out.push(`${p.name}: started at ${at} inside its pause from ${p.at} to ${p.until}`);
      }
      // Jobs are created in this order; one still in the database, or deleted by retention, kept its window.
      for (const [key, made] of creations) {
        for (let i = 1; i < made.length; i++) {
          const [before, after] = [made[i - 1]!, made[i]!];
          const windowMs = rules.throttleMs[key]!;
          if (exists.has(before.id) && after.at - before.at < windowMs) out.push(`throttle ${key}: jobs ${before.id} and ${after.id} created at ${before.at} and ${after.at}, within its ${windowMs} ms window`);
        }
      }
      return out;
    },
  };
}
