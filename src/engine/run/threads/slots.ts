/**
 * At most `size` holders at once; the others wait first come, first served.
 * A freed slot goes straight to the first waiter (the count never drops in
 * between), so that no newcomer overtakes it. A waiter whose signal aborts
 * leaves the line.
 */
export interface Slots {
  /** Resolves true with a slot held, or false if the signal aborted while waiting. */
  acquire(signal: AbortSignal): Promise<boolean>;
  release(): void;
}

export function createSlots(size: number): Slots {
  let held = 0;
  const waiting: Array<() => void> = [];
  return {
    acquire(signal) {
      if (held < size) {
        held++;
        return Promise.resolve(true);
      }
      return new Promise((resolve) => {
        const grant = (): void => {
          signal.removeEventListener('abort', leave);
          resolve(true);
        };
        function leave(): void {
          waiting.splice(waiting.indexOf(grant), 1);
          resolve(false);
        }
        waiting.push(grant);
        signal.addEventListener('abort', leave, { once: true });
      });
    },
    release() {
      const next = waiting.shift();
      if (next) next();
      else held--;
    },
  };
}
