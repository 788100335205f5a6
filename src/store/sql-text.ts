/**
 * The names both stores' SQL text is written with, filled in once when a
 * statement is loaded: `{{pending}}`, `{{processing}}` … (the job machine's
 * states) and `{{span.active}}` … (unique-key spans, contract/job.ts `UniqueSpan`).
 * State names are never spelled in SQL, and stay literals rather than bound
 * parameters: a partial index (`WHERE state = 'pending'`) is used only when
 * the planner can see that a query's state matches it.
 */
import { JobState } from '../../machines/job.machine.js';
import { UniqueSpan } from './contract/job.js';

const quote = (text: string) => `'${text.replace(/'/g, "''")}'`;

/**
 * Fills in `{{state}}` (a quoted literal) and `{{span.name}}` (a number);
 * `other` fills in the names a store adds (PostgreSQL's `{{schema}}`). An
 * unknown name is a bug in the file.
 */
export function fillNames(text: string, file: string, other?: (name: string) => string | undefined): string {
  return text.replace(/\{\{(span\.[\w-]+|\w+)\}\}/g, (_, name: string) => {
    if (name.startsWith('span.')) {
      const span = (UniqueSpan as Record<string, number>)[name.slice('span.'.length)];
      if (span !== undefined) return String(span);
    }
    const state = (JobState as Record<string, string>)[name];
    if (state !== undefined) return quote(state);
    const filled = other?.(name);
    if (filled !== undefined) return filled;
    throw new TypeError(`${file}: {{${name}}} is neither a job state nor a unique span${other ? ' nor a name this store fills in' : ''}`);
  });
}
