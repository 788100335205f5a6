/**
 * A producer process is SIGKILLed while it enqueues: every job whose enqueue
 * (or enqueueMany) promise resolved in that process is in the file afterwards,
 * as it was acknowledged, and each enqueueMany batch is there whole or not at all.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDbPath } from '../helpers/temp-db.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/worker-process.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Message {
  type: string;
  [key: string]: unknown;
}

interface Child {
  proc: ChildProcess;
  messages: Message[];
  stderr: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with the first message (already seen or to come) matching `pred`; rejects if the child exits first. */
  waitFor(pred: (m: Message) => boolean, ms: number): Promise<Message>;
}

const children: Child[] = [];

function spawnChild(db: string, mode: 'work' | 'enqueue'): Child {
  const proc = spawn(process.execPath, ['--import', 'tsx', FIXTURE, db, mode], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const messages: Message[] = [];
  const stderr: string[] = [];
  const waiters = new Set<() => void>();
  createInterface({ input: proc.stdout! }).on('line', (line) => {
    messages.push(JSON.parse(line) as Message);
    for (const w of [...waiters]) w();
  });
  proc.stderr!.setEncoding('utf8').on('data', (s: string) => stderr.push(s));
  const exited = once(proc, 'exit').then(([code, signal]) => {
    for (const w of [...waiters]) w();
    return { code: code as number | null, signal: signal as NodeJS.Signals | null };
  });
  let done = false;
  void exited.then(() => (done = true));
  const child: Child = {
    proc,
    messages,
    stderr,
    exited,
    waitFor(pred, ms) {
      return new Promise<Message>((resolve, reject) => {
        const check = () => {
          const m = messages.find(pred);
          if (m) finish(() => resolve(m));
          else if (done || proc.exitCode !== null || proc.signalCode !== null) {
            finish(() => reject(new Error(`child ${proc.pid} exited before the awaited message; stderr: ${stderr.join('')}`)));
          }
        };
        const timer = setTimeout(() => finish(() => reject(new Error(`child ${proc.pid}: no awaited message within ${ms} ms`))), ms);
        const finish = (settle: () => void) => {
          clearTimeout(timer);
          waiters.delete(check);
          settle();
        };
        waiters.add(check);
        check();
      });
    },
  };
  children.push(child);
  return child;
}

afterEach(() => {
  for (const c of children.splice(0)) if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGKILL');
});


const BATCH = 25; // ENQUEUE_BATCH in the fixture

describe('a producer killed with SIGKILL', () => {
  it.each([250, 2000])('never loses an acknowledged job (killed after %i acknowledged ids)', async (threshold) => {
    const db = tempDbPath();
    try {
      const producer = spawnChild(db.path, 'enqueue');
      const acked = () => producer.messages.filter((m) => m.type === 'ack').reduce((n, m) => n + (m.ids as number[]).length, 0);
      await producer.waitFor(() => acked() >= threshold, 60_000);
      producer.proc.kill('SIGKILL'); // right away: the producer is in the middle of its next enqueue
      const exit = await producer.exited;
      expect(exit.signal).toBe('SIGKILL');

      // Every line the producer wrote before it died counts: each lists ids whose promises had resolved.
      const acks = producer.messages.filter((m) => m.type === 'ack') as unknown as Array<{ via: 'many' | 'one'; round: number; ids: number[] }>;
      const ids = acks.flatMap((a) => a.ids);
      expect(ids.length).toBeGreaterThanOrEqual(threshold);
      expect(new Set(ids).size).toBe(ids.length);

      const file = new Database(db.path, { readonly: true, fileMustExist: true });
      try {
        const rows = file.prepare('SELECT id, name, state, payload, attempts FROM jobs ORDER BY id').all() as Array<{
          id: number;
          name: string;
          state: string;
          payload: string;
          attempts: number;
        }>;
        const byId = new Map(rows.map((r) => [r.id, r]));
        // Each acknowledged id is in the file, as enqueued.
        const missing = ids.filter((id) => !byId.has(id));
        expect(missing).toEqual([]);
        for (const a of acks) {
          a.ids.forEach((id, i) => {
            const row = byId.get(id)!;
            expect({ name: row.name, state: row.state, attempts: row.attempts, payload: JSON.parse(row.payload) as unknown }).toEqual({
              name: 'work',
              state: 'pending',
              attempts: 0,
              payload: { round: a.round, via: a.via, i },
            });
          });
        }
        // The file holds at most what was acknowledged plus the one call cut short; an enqueueMany batch is all or nothing.
        const groups = new Map<string, number>();
        for (const r of rows) {
          const p = JSON.parse(r.payload) as { round: number; via: string };
          groups.set(`${p.round}/${p.via}`, (groups.get(`${p.round}/${p.via}`) ?? 0) + 1);
        }
        for (const [group, n] of groups) {
          if (group.endsWith('/many')) expect(n, group).toBe(BATCH);
          else expect(n, group).toBeLessThanOrEqual(BATCH);
        }
        expect(rows.length - ids.length).toBeLessThanOrEqual(BATCH);
        // The history agrees with the rows.
        expect(file.prepare("SELECT count(*) FROM job_history WHERE event = 'job.enqueue'").pluck().get()).toBe(rows.length);
        expect(file.pragma('integrity_check', { simple: true })).toBe('ok');
      } finally {
        file.close();
      }
    } finally {
      db.cleanup();
    }
  }, 90_000);
});
