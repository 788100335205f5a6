/**
 * Which servers the peers need are reachable: Redis for BullMQ, PostgreSQL
 * for pg-boss. A peer whose server is down is skipped, never fatal.
 * BENCH_REDIS_URL / BENCH_PG_URL point elsewhere (e.g. a wrong port to test skipping).
 */
import { createRequire } from 'node:module';
import { Redis } from 'ioredis';

const require = createRequire(import.meta.url);

export interface ServerStatus {
  ok: boolean;
  url: string;
  version?: string;
  reason?: string;
}

export interface Servers {
  redis: ServerStatus;
  postgres: ServerStatus;
}

export const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const PG_URLS = process.env.BENCH_PG_URL
  ? [process.env.BENCH_PG_URL]
  : ['postgres://postgres@127.0.0.1:5432/test', 'postgres://root@127.0.0.1:5432/test'];

/** A Redis client that fails fast instead of retrying forever. */
export function redisClient(url = REDIS_URL): Redis {
  const client = new Redis(url, { lazyConnect: true, connectTimeout: 1500, maxRetriesPerRequest: 1, retryStrategy: () => null });
  client.on('error', () => {}); // reported through the failing command instead
  return client;
}

export async function redisUsedMemory(client: Redis): Promise<number> {
  const info = await client.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? Number.NaN);
}

async function checkRedis(): Promise<ServerStatus> {
  const client = redisClient();
  let cause = '';
  client.on('error', (err: Error) => (cause ||= err.message));
  try {
    await client.connect();
    const info = await client.info('server');
    return { ok: true, url: REDIS_URL, version: /redis_version:(\S+)/.exec(info)?.[1] ?? '?' };
  } catch (err) {
    return { ok: false, url: REDIS_URL, reason: cause || (err as Error).message || String(err) };
  } finally {
    client.disconnect();
  }
}

/** The bits of `pg` (bundled with pg-boss; no type package installed) the harness uses. */
export interface PgClient {
  connect(): Promise<void>;
  query(sql: string): Promise<{ rows: Array<Record<string, unknown>> }>;
  end(): Promise<void>;
  on(event: 'error', fn: (err: Error) => void): void;
}
type PgModule = { Client: new (options: { connectionString: string; connectionTimeoutMillis?: number }) => PgClient };
export const pg: PgModule = require('pg') as PgModule;

export async function pgClient(url: string): Promise<PgClient> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on('error', () => {});
  await client.connect();
  return client;
}

async function checkPostgres(): Promise<ServerStatus> {
  let reason = '';
  for (const url of PG_URLS) {
    try {
      const client = await pgClient(url);
      try {
        const { rows } = await client.query('show server_version');
        return { ok: true, url, version: String(rows[0]?.server_version ?? '?') };
      } finally {
        await client.end();
      }
    } catch (err) {
      reason = (err as Error).message || String(err);
    }
  }
  return { ok: false, url: PG_URLS[0]!, reason };
}

export async function checkServers(): Promise<Servers> {
  const [redis, postgres] = await Promise.all([checkRedis(), checkPostgres()]);
  return { redis, postgres };
}
