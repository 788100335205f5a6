/**
 * Runs as intervals, for the model check (test/property/engine.model.test.ts):
 * a handler's run starts when the executor calls it and ends when it
 * returns, which the model decides (`finish`), or the run's signal does for a
 * handler that heeds it. A run outlives its row's `processing` whenever
 * something else moves the job meanwhile. The log says when a run of a job
 * starts while another run of the same job is still going, and which live
 * runs were left unaborted after their job moved on without them.
 */

export interface LiveRun {
  id: number;
  token: string;
  signal: AbortSignal;
  finish(): void;
}

export interface RunLog {
  /** The lease token the executor is about to start a job under: it calls the handler at once, within its own call. */
  starting(id: number, token: string): void;
  /** The lease token a handler was started under: called at its start, before it awaits anything. */
  token(id: number): string;
  /** Called by the handler: returns when the run may go on (finished, aborted if it heeds, or draining). */
  run(id: number, signal: AbortSignal, heed: boolean, token?: string): Promise<void>;
  /** Lets the `n`-th live run (of all, in start order) return. */
  finishOne(n: number): void;
  /** From now on runs return at once, and every live one is let go. */
  drain(): void;
  live(): readonly LiveRun[];
  /** Runs that started while another run of the same job was live. */
  overlaps(): readonly string[];
}

export function createRunLog(): RunLog {
  let next: { id: number; token: string } | undefined;
  const live: LiveRun[] = [];
  const overlaps: string[] = [];
  let draining = false;
  return {
    starting(id, token) {
      next = { id, token };
    },
    token(id) {
      const token = next?.id === id ? next.token : '?';
      next = undefined;
      return token;
    },
    async run(id, signal, heed, given) {
      const token = given ?? this.token(id);
      const others = live.filter((r) => r.id === id);
      if (others.length > 0) overlaps.push(`job ${id}: a run under ${token} started while ${others.map((r) => r.token).join(', ')} still ran`);
      let finish!: () => void;
      const finished = new Promise<void>((resolve) => (finish = resolve));
      const run: LiveRun = { id, token, signal, finish };
      live.push(run);
      try {
        if (draining) return;
        const aborted = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
        await (heed ? Promise.race([finished, aborted]) : finished);
      } finally {
        live.splice(live.indexOf(run), 1);
      }
    },
    finishOne(n) {
      if (live.length > 0) live[n % live.length]!.finish();
    },
    drain() {
      draining = true;
      for (const run of live) run.finish();
    },
    live: () => live,
    overlaps: () => overlaps,
  };
}
