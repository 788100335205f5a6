/**
 * undici, loaded on a webhook job's first delivery: it is the largest module
 * a queue would otherwise load at start (~60 ms of a CLI command's ~400 ms
 * on this machine), and most processes (the CLI, a producer, a worker
 * without webhook jobs) never send a request.
 */
export type Undici = typeof import('undici');

let loading: Promise<Undici> | undefined;

export function loadUndici(): Promise<Undici> {
  loading ??= import('undici');
  return loading;
}
