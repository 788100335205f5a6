// Running from source only: a worker thread does not inherit the TypeScript
// loader of the test runner or of tsx, so register tsx here, then load the
// thread's real entry (module-worker.ts). Never used from dist/.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
