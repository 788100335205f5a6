/** Each test gets its own database file in its own temp folder. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function tempDir(prefix = 'litejobs-'): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function tempDbPath(): { path: string; cleanup(): void } {
  const { dir, cleanup } = tempDir();
  return { path: join(dir, 'jobs.db'), cleanup };
}
