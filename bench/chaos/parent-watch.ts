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
