/**
 * Clean-ups that every test file runs after each of its tests, for helpers
 * that keep module-level state (the child processes they started, the
 * proxies they opened).
 *
 * The suite runs many files in one worker without reloading modules
 * (`isolate: false`), so a helper is evaluated once per worker: an
 * `afterEach` at its top level would be registered for the first file that
 * imported it and for no other. The helper calls `afterEachTest(fn)` once
 * instead, and test/setup/after-each.ts, which runs before every file,
 * registers the hook that calls them all.
 */
const cleanups = new Set<() => unknown>();

export function afterEachTest(cleanup: () => unknown): void {
  cleanups.add(cleanup);
}

/** Runs every registered clean-up (test/setup/after-each.ts). */
export async function runAfterEachTest(): Promise<void> {
  await Promise.all([...cleanups].map((c) => c()));
}
