/**
 * Loads the SQL of each store statement from its own file (`claim-ready.sql`, `transition.sql` …).
 * The build copies `sql/` beside the compiled module, so the same relative
 * URL works from `src/` (tests) and `dist/` (the package).
 */
import { readFileSync, readdirSync } from 'node:fs';

const dir = new URL('./sql/', import.meta.url);

export function sql(name: string): string {
  return readFileSync(new URL(`${name}.sql`, dir), 'utf8');
}

/** Numbered migrations (`001_init.sql` …), in order, with their level. */
export function migrations(): Array<{ level: number; name: string; text: string }> {
  const migrationsDir = new URL('migrations/', dir);
  return readdirSync(migrationsDir)
    .filter((f) => /^\d+_.*\.sql$/.test(f))
    .sort()
    .map((f) => ({ level: Number.parseInt(f, 10), name: f, text: readFileSync(new URL(f, migrationsDir), 'utf8') }));
}
