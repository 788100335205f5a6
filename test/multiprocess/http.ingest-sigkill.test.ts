/**
 * The promise a webhook service makes: a 2xx means the hook is stored. A
 * burst of requests from many concurrent clients, the server SIGKILLed in the
 * middle of it (`litejobs serve`, a real child process), a restart, the rest of the burst: every acknowledged request
 * is in the file exactly once, and no request is in it twice.
 */
import { writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDbPath } from '../helpers/temp-db.js';
import { nodeArgs } from '../helpers/node-args.js';

const CLI = fileURLToPath(new URL('../../src/cli/bin.ts', import.meta.url));
const TOTAL = 20_000;
const CLIENTS = 48;
const KILL_AFTER_ACKS = 8_000;

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

async function startServer(db: string): Promise<{ proc: ChildProcess; url: string }> {
  // `litejobs serve` as users run it; it logs JSON lines, the URL among them.
  // Only listed hooks exist.
  const hooks = `${db}.hooks.json`;
  writeFileSync(hooks, JSON.stringify({ ingest: {} }));
  const proc = spawn(process.execPath, nodeArgs(CLI, 'serve', '--port', '0', '--hooks', hooks, '--db', db), { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, LITEJOBS_LOG_LEVEL: 'info' } });
  children.push(proc);
  const url = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: proc.stdout! });
    lines.on('line', (line) => {
      const found = /"url":"(http:\/\/[^"]+)"/.exec(line)?.[1];
      if (found) resolve(found);
    });
    proc.once('exit', () => reject(new Error('server exited before listening')));
  });
  return { proc, url };
}

describe('HTTP ingestion under SIGKILL', () => {
  it('keeps every acknowledged hook exactly once across a crash mid-burst', { timeout: 120_000 }, async () => {
    const db = tempDbPath();
    let server = await startServer(db.path);
    const agent = new Agent({ connections: CLIENTS, pipelining: 1 });
    const acked = new Map<number, number>(); // seq → the job id the 2xx answered
    let unacked = 0; // in flight when the server died, or sent while it was down: stored or not, never twice
    let next = 0;
    let killed = false;
    let restarted: Promise<void> | undefined;

    const send = async (seq: number, url: string): Promise<number | undefined> => {
      try {
        const res = await request(`${url}/v1/hooks/ingest`, {
          method: 'POST',
          dispatcher: agent,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ seq, customer: seq % 97, event: 'payment.succeeded', amount: seq * 3 }),
        });
        const body = (await res.body.json()) as { id: number; created: boolean };
        if (res.statusCode === 201 && body.created) return body.id;
        throw new Error(`unexpected status ${res.statusCode}`);
      } catch (err) {
        if ((err as Error).message.startsWith('unexpected status')) throw err;
        return undefined; // connection refused or reset: not acknowledged
      }
    };

    // Each request is sent once: a refused one is not sent again (a client would
    // resend it with an Idempotency-Key), so a row stored twice is a real double.
    const client = async () => {
      while (next < TOTAL) {
        if (restarted) await restarted;
        const seq = next++;
        const id = await send(seq, server.url);
        if (id !== undefined) {
          acked.set(seq, id);
          if (!killed && acked.size >= KILL_AFTER_ACKS) {
            killed = true;
            server.proc.kill('SIGKILL');
            restarted = (async () => {
              await once(server.proc, 'exit');
              server = await startServer(db.path);
              restarted = undefined;
            })();
          }
        } else {
          unacked++;
          if (!killed) throw new Error(`request ${seq} failed before the server was killed`);
        }
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, client));
    await agent.close();
    server.proc.kill('SIGTERM');
    await once(server.proc, 'exit');

    expect(killed).toBe(true);
    expect(acked.size + unacked).toBe(TOTAL);
    expect(acked.size).toBeGreaterThan(TOTAL - 2 * CLIENTS * 10); // the restarted server took the rest of the burst
    const reader = new Database(db.path, { readonly: true });
    const rows = reader.prepare("SELECT json_extract(payload, '$.body.seq') AS seq, count(*) AS n, min(id) AS id FROM jobs GROUP BY seq").all() as Array<{ seq: number; n: number; id: number }>;
    reader.close();
    const stored = new Map(rows.map((r) => [r.seq, r.id]));
    // Acknowledged means stored under the id the answer gave.
    const missing = [...acked].filter(([seq, id]) => stored.get(seq) !== id);
    const doubled = rows.filter((r) => r.n > 1);
    expect(missing).toEqual([]);
    expect(doubled).toEqual([]);
    expect(rows.length).toBeLessThanOrEqual(TOTAL);
    db.cleanup();
  });
});
