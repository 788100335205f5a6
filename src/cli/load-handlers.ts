/**
 * `--handlers ./handlers.js`: a module whose exports are `defineJob(…)`
 * objects (named exports, a default export, or arrays of them). Anything
 * else it exports is ignored; a module that defines no job is an error, and
 * so is one that defines a name twice.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AnyJobDefinition } from '../engine/job-definition.js';
import { CliFailure } from './exit-codes.js';

const isJobDefinition = (value: unknown): value is AnyJobDefinition => {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as { name?: unknown; handler?: unknown; module?: unknown; declared?: unknown };
  return typeof v.name === 'string' && v.declared !== true && (typeof v.handler === 'function' || v.module !== undefined);
};

export async function loadHandlers(file: string): Promise<AnyJobDefinition[]> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(resolve(file)).href)) as Record<string, unknown>;
  } catch (err) {
    throw new CliFailure(`cannot load handlers from ${file}: ${(err as Error).message}`);
  }
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
