/**
 * Where the CLI writes and how it hears Ctrl+C, passed in so that the program
 * can be built without touching the process (the docs generator does) and
 * driven against other streams.
 */

export interface OutStream {
  write(text: string): unknown;
  /** A terminal: the CLI may redraw and draw progress bars on it. */
  isTTY?: boolean;
}

export interface CliIO {
  stdout: OutStream;
  stderr: OutStream;
  /** Calls `handler` on Ctrl+C (SIGINT); returns a function that stops listening. */
  onInterrupt(handler: () => void): () => void;
}

/** The process's own streams and SIGINT. */
export function processIO(): CliIO {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    onInterrupt(handler) {
      process.on('SIGINT', handler);
      return () => process.off('SIGINT', handler);
    },
  };
}
