/**
 * A run's `ctx.progress()` writes, one at a time per job: a value given while
 * the previous one is still being written waits, and a newer one replaces it
 * (its caller's promise settles with the newer value's write). A handler that
 * reports per item of a long loop costs a write per round trip, not one per
 * call, and the history and the feed carry the values as they stood.
 */

/** Writes one value (its JSON text); false when the lease is lost. */
export type ProgressWrite = (jobId: number, token: string, text: string) => Promise<boolean>;

interface Waiting {
  text: string;
  settle: Array<{ resolve: (ok: boolean) => void; reject: (err: unknown) => void }>;
}

export interface ProgressWrites {
  /** Resolves once this value, or a newer one, is written (false: the lease is lost). */
  write(jobId: number, token: string, text: string): Promise<boolean>;
}

export function createProgressWrites(write: ProgressWrite): ProgressWrites {
  /** Per job and lease: a write under way, and the newest value waiting for it. */
  const busy = new Map<string, { waiting: Waiting | undefined }>();
  const start = (key: string, jobId: number, token: string, text: string): Promise<boolean> => {
    const slot = { waiting: undefined as Waiting | undefined };
    busy.set(key, slot);
    const done = write(jobId, token, text);
    const next = () => {
      const waiting = slot.waiting;
      busy.delete(key);
      if (!waiting) return;
      const written = start(key, jobId, token, waiting.text);
      written.then(
        (ok) => {
          for (const s of waiting.settle) s.resolve(ok);
        },
        (err: unknown) => {
          for (const s of waiting.settle) s.reject(err);
        },
      );
    };
    void done.then(next, next);
    return done;
  };
  return {
    write(jobId, token, text) {
      const key = `${jobId}:${token}`;
      const slot = busy.get(key);
      if (!slot) return start(key, jobId, token, text);
      return new Promise<boolean>((resolve, reject) => {
        slot.waiting = { text, settle: [...(slot.waiting?.settle ?? []), { resolve, reject }] };
      });
    },
  };
}
