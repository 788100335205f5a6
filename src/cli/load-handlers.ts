/**
 * `--handlers ./handlers.js`: a module whose exports are `defineJob(…)`
 * objects (named exports, a default export, or arrays of them). Anything
 * else it exports is ignored; a module that defines no job is an error, and
 * so is one that defines a name twice. A command that only enqueues takes
 * `declareJob(…)` objects too (`loadJobs`): their schemas validate payloads.
 */
import type { AnyJob, AnyJobDeclaration, AnyJobDefinition } from '../engine/core/job-definition.js';
import { CliFailure } from './exit-codes.js';
import { importUserModule } from './user-module.js';

const isJobDefinition = (value: unknown): value is AnyJobDefinition => {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as { name?: unknown; handler?: unknown; module?: unknown; declared?: unknown };
  return typeof v.name === 'string' && v.declared !== true && (typeof v.handler === 'function' || v.module !== undefined);
};

const isJobDeclaration = (value: unknown): value is AnyJobDeclaration =>
  typeof value === 'object' && value !== null && typeof (value as { name?: unknown }).name === 'string' && (value as { declared?: unknown }).declared === true;

export async function loadHandlers(file: string): Promise<AnyJobDefinition[]> {
  return (await loadJobs(file, { declarations: false })) as AnyJobDefinition[];
}

/** The module's jobs; with `declarations`, its `declareJob` objects besides its definitions. */
export async function loadJobs(file: string, options: { declarations: boolean }): Promise<AnyJob[]> {
  const mod = await importUserModule(file);
  const jobs: AnyJob[] = [];
  const seen = new Set<AnyJob>();
  for (const value of Object.values(mod).flat()) {
    if ((isJobDefinition(value) || (options.declarations && isJobDeclaration(value))) && !seen.has(value)) {
      seen.add(value);
      jobs.push(value);
    }
  }
  if (jobs.length === 0) {
    const what = options.declarations ? 'defineJob(…) or declareJob(…) objects' : 'defineJob(…) objects';
    throw new CliFailure(`${file} exports no job definitions (export ${what}, or an array of them)`);
  }
  const names = jobs.map((job) => job.name);
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice) throw new CliFailure(`${file} defines the job "${twice}" twice`);
  return jobs;
}
