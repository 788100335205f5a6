/** `npm run schema`: writes src/store/sqlite/schema.sql from a freshly migrated file. */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dumpSchema } from '../../src/store/sqlite/schema.js';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.js';

const dir = mkdtempSync(join(tmpdir(), 'litejobs-schema-'));
try {
  const path = join(dir, 'fresh.db');
  await createSqliteStore({ path, durability: 'normal', cacheMiB: 8, busyTimeoutMs: 1000, history: true }).close();
  const db = new Database(path, { readonly: true });
  const target = fileURLToPath(new URL('../../src/store/sqlite/schema.sql', import.meta.url));
  writeFileSync(target, dumpSchema(db));
  db.close();
  console.log(`wrote ${target}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
