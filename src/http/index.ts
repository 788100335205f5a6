/** `litejobs/http`: the HTTP API as a fastify plugin, and the standalone server `litejobs serve` runs. */
export { litejobsHttp } from './plugin.js';
export type { LitejobsHttpOptions } from './plugin.js';
export type { HookOptions } from './routes/hooks.js';
export { HttpError } from './errors.js';
export type { ErrorBody } from './errors.js';
export { NAME_PATTERN } from './schemas.js';
export { startServer } from './server.js';
export type { ServerOptions, RunningServer } from './server.js';
