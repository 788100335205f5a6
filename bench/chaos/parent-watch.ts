import { closeSync } from 'node:fs';

/**
 * A chaos child ends when its controller does: its stdin is a pipe from the
 * controller, which the kernel closes when the controller dies, however it
 * dies. Without this, a controller killed by a test timeout would leave
 * workers polling the file forever.
 */
export function exitWithParent(): void {
  process.stdin.on('end', () => process.exit(3));
  process.stdin.on('error', () => process.exit(3));
  process.stdin.resume();
}

/**
 * On SIGTERM (the controller stopping it), `close()` once, then closes the
 * child's log file and exits: 0 when the close went through, 1 when it failed.
 */
export function closeOnTerm(close: () => Promise<void>, log: number): void {
  let stopping = false;
  process.on('SIGTERM', () => {
    if (stopping) return;
    stopping = true;
    close().then(
      () => {
        closeSync(log);
        process.exit(0);
      },
      (err: unknown) => {
        process.stderr.write(`close failed: ${String(err)}\n`);
        process.exit(1);
      },
    );
  });
}
