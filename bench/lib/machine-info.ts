/** What the numbers were measured on: hardware, runtimes, servers, package versions, commit. */
import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, release, totalmem } from 'node:os';
import { join } from 'node:path';
import type { Servers } from './servers.js';

export const ROOT = new URL('../..', import.meta.url).pathname;

export interface MachineInfo {
  cpu: string;
  cores: number;
  memoryGiB: number;
  os: string;
  node: string;
  sqlite: string;
  redis: string;
  postgres: string;
  packages: Record<string, string>;
  commit: string;
  /** Files under src/ or machines/ that differ from the commit (the engine was being changed meanwhile). */
  uncommittedEngineFiles: number;
}

function packageVersion(name: string): string {
  try {
    return (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'not installed';
  }
}

function cpuModel(): string {
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (m) return m[1]!.trim();
  } catch {
    // not Linux
  }
  return cpus()[0]?.model ?? 'unknown';
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

export function machineInfo(servers: Servers): MachineInfo {
  const db = new Database(':memory:');
  const sqlite = (db.prepare('select sqlite_version() as v').get() as { v: string }).v;
  db.close();
  const own = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  const dirty = git(['status', '--porcelain', '--', 'src', 'machines']);
  return {
    cpu: cpuModel(),
    cores: cpus().length,
    memoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    os: `${process.platform} ${release()}`,
    node: process.version,
    sqlite,
    redis: servers.redis.ok ? `${servers.redis.version} (${servers.redis.url})` : `unreachable (${servers.redis.url})`,
    postgres: servers.postgres.ok ? `${servers.postgres.version}` : `unreachable`,
    packages: {
      litejobs: own.version,
      'better-sqlite3': packageVersion('better-sqlite3'),
      xstate: packageVersion('xstate'),
      rxjs: packageVersion('rxjs'),
      bullmq: packageVersion('bullmq'),
      ioredis: packageVersion('ioredis'),
      plainjob: packageVersion('plainjob'),
      'pg-boss': packageVersion('pg-boss'),
      'graphile-worker': packageVersion('graphile-worker'),
      pg: packageVersion('pg'),
    },
    commit: git(['rev-parse', '--short', 'HEAD']) || 'unknown',
    uncommittedEngineFiles: dirty ? dirty.split('\n').length : 0,
  };
}
