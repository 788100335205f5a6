/**
 * `--handlers ./handlers.js`: a module whose exports are `defineJob(…)`
 * objects (named exports, a default export, or arrays of them). Anything
 * else it exports is ignored; a module that defines no job is an error, and
 * so is one that defines a name twice.
 */
import type { AnyJobDefinition } from '../engine/job-definition.js';
import { CliFailure } from './exit-codes.js';
import { importUserModule } from './user-module.js';

const isJobDefinition = (value: unknown): value is AnyJobDefinition => {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as { name?: unknown; handler?: unknown; module?: unknown; declared?: unknown };
  return typeof v.name === 'string' && v.declared !== true && (typeof v.handler === 'function' || v.module !== undefined);
};

export async function loadHandlers(file: string): Promise<AnyJobDefinition[]> {
  const mod = await importUserModule(file);
  const jobs: AnyJobDefinition[] = [];
  const seen = new Set<AnyJobDefinition>();
  for (const value of Object.values(mod).flat()) {
    if (isJobDefinition(value) && !seen.has(value)) {
      seen.add(value);
      jobs.push(value);
    }
  }
  if (jobs.length === 0) throw new CliFailure(`${file} exports no job definitions (export defineJob(…) objects, or an array of them)`);
  const names = jobs.map((job) => job.name);
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice) throw new CliFailure(`${file} defines the job "${twice}" twice`);
  return jobs;
}
