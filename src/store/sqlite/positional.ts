/**
 * Hot statements: the SQL names its parameters (`@id`, `@token`), and they
 * are bound by position. better-sqlite3 looks every named parameter up in the
 * bound object by name on each call (over a third of a batched INSERT's
 * whole cost: the benchmarks page, "Sizes chosen by measurement"); here
 * the names are turned into `?` once, at prepare time, and each call passes
 * the values in that order. Readers still see names; nobody counts `?`s.
 */
import type Database from 'better-sqlite3';

export interface PositionalStatement<P extends Record<string, unknown>> {
  run(params: P): Database.RunResult;
  get(params: P): unknown;
}

export function positional<P extends Record<string, unknown>>(db: Database.Database, text: string): PositionalStatement<P> {
  const names: string[] = [];
  // Comments go first (they may name parameters too); string literals in the store's SQL hold no @.
  const code = text.replace(/--[^\n]*/g, '');
  const converted = code.replace(/@([A-Za-z_][A-Za-z0-9_]*)/g, (_, name: string) => {
    names.push(name);
    return '?';
  });
  const statement = db.prepare(converted);
  // One array per statement, refilled on each call: binding copies the values
  // out synchronously, so nothing holds on to it between calls.
  const out = new Array<unknown>(names.length);
  const values = (params: P): unknown[] => {
    for (let i = 0; i < names.length; i++) out[i] = params[names[i]!];
    return out;
  };
  return {
    run: (params) => statement.run(values(params)),
    get: (params) => statement.get(values(params)),
  };
}
