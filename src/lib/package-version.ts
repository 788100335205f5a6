/** The version in litejobs' package.json, found from src/ or dist/src/ alike. */
import { readFileSync } from 'node:fs';

let cached: string | undefined;

export function packageVersion(): string {
  cached ??= find();
  return cached;
}

function find(): string {
  for (let dir = new URL('.', import.meta.url); dir.pathname !== '/'; dir = new URL('..', dir)) {
    try {
      const pkg = JSON.parse(readFileSync(new URL('package.json', dir), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'litejobs' && pkg.version) return pkg.version;
    } catch {
      // no package.json at this level: look one up
    }
  }
  return 'unknown';
}
