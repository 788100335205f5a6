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
  const push = (m: Map<string, number[]>, key: string, at: number) => m.set(key, [...(m.get(key) ?? []), at]);
  return {
    started: (name, at) => void push(starts, name, at),
    paused: (name, at, until) => void pauses.push({ name, at, until }),
    created: (key, at, id) => void creations.set(key, [...(creations.get(key) ?? []), { at, id }]),
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
