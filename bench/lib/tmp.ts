/** Scratch database files: one fresh path per round, removed after it. */
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

let counter = 0;

export function freshDbPath(dir: string, label: string): string {
  mkdirSync(dir, { recursive: true });
  return join(dir, `${label.replace(/[^a-z0-9]+/gi, '-')}-${process.pid}-${++counter}.db`);
}

/** Removes a SQLite file and its -wal / -shm companions. */
export function removeDb(path: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(path + suffix, { force: true });
}

/** Bytes of the file plus its WAL. */
export function dbBytes(path: string): { file: number; wal: number } {
  const size = (p: string) => {
    try {
      return statSync(p).size;
    } catch {
      return 0;
    }
  };
  return { file: size(path), wal: size(`${path}-wal`) };
}

/** A unique name for a Redis queue / PostgreSQL schema, so cleanup touches only what this run made. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${process.pid}_${++counter}_${Math.random().toString(36).slice(2, 8)}`;
}
