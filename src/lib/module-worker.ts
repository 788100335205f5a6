/**
 * Starts a worker thread from a module file, typed and compiled like the rest
 * of the code (never a string of code). From `dist/` the entry is a `.js`
 * file Node loads as it is; run from source (tests, `tsx`), the entry is a
 * `.ts` file, and the thread first registers tsx through ts-thread-boot.mjs.
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** Threads talk over their port; `workerData` is the boot step's (it names the entry). */
export function startModuleWorker(entry: URL, options: Omit<WorkerOptions, 'workerData'> = {}): Worker {
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, options);
  return new Worker(new URL('./ts-thread-boot.mjs', import.meta.url), { ...options, workerData: { entry: entry.href } });
}

/** The URL of a module beside `metaUrl` (`.ts` from source, `.js` from dist/). */
export function siblingModule(metaUrl: string, name: string): URL {
  return new URL(`./${name}.${metaUrl.endsWith('.ts') ? 'ts' : 'js'}`, metaUrl);
}
