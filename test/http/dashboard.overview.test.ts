/**
 * `GET /v1/dashboard/overview` over a real socket: one row per job name with
 * its counts, pause, throughput and waits; the hour before the server looked
 * is read back from the history, later changes arrive live; the token guards
 * it like the other dashboard reads.
 */
import { describe, expect, it } from 'vitest';
import { defineJob, UnrecoverableError } from '../../src/index.js';
import { useServers } from '../helpers/http-server.js';
import { events } from '../helpers/wait.js';

const serve = useServers();
const TOKEN = 'overview-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };

const send = defineJob({ name: 'send', handler: async () => 'sent' });
const charge = defineJob({
  name: 'charge',
  handler: async () => {
    throw new UnrecoverableError('card declined');
  },
});

interface Row {
  name: string;
  paused: boolean;
  counts: Record<string, number>;
  throughput: { completed: number; failed: number };
  perMinute: { completed: number[]; failed: number[] };
  wait: { p50: number | null; p95: number | null };
}

const total = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/** Asks until `ok` holds for the answer (the feed reads the store every 250 ms); the last answer otherwise. */
async function overviewUntil(call: () => Promise<{ body: { rows: Row[] } }>, ok: (rows: Row[]) => boolean, ms = 10_000): Promise<Row[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const { body } = await call();
    if (ok(body.rows) || Date.now() > deadline) return body.rows;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('GET /v1/dashboard/overview', () => {
  it('lists each name with its counts, pause, throughput and waits, from the history and then live', async () => {
    const s = await serve({ queue: { jobs: [send, charge], concurrency: 4 }, server: { token: TOKEN } });
    await s.queue.enqueueMany([
      { name: 'send', payload: 1 },
      { name: 'send', payload: 2 },
      { name: 'send', payload: 3 },
      { name: 'charge', payload: 1 },
      { name: 'charge', payload: 2 },
    ]);
    const finished = events(s.queue.events$, (e) => e.to === 'completed' || e.to === 'dead', 5);
    await s.queue.start();
    await finished;
    await s.queue.pause('audit');
    await s.queue.enqueue('audit', {});

    expect((await s.call('GET', '/v1/dashboard/overview')).status).toBe(401);
    // Nothing looked before: the first answer reads the hour back from the history.
    const first = await s.call('GET', '/v1/dashboard/overview', { headers: auth });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ windowMs: 300_000, perMinute: { step: 60_000 }, paused: { all: false, names: ['audit'] }, other: null });
    expect(typeof first.body.at).toBe('number');
    const rows: Row[] = first.body.rows;
    expect(rows.map((r) => r.name)).toEqual(['audit', 'charge', 'send']);
    const [audit, dead, sent] = rows as [Row, Row, Row];
    expect(audit).toMatchObject({ paused: true, counts: { pending: 1 }, throughput: { completed: 0, failed: 0 }, wait: { p50: null, p95: null } });
    expect(dead).toMatchObject({ paused: false, counts: { dead: 2 } });
    expect(total(dead.perMinute.failed)).toBe(2);
    expect(total(dead.perMinute.completed)).toBe(0);
    expect(dead.throughput.failed).toBeGreaterThan(0);
    expect(sent).toMatchObject({ paused: false, counts: { completed: 3 } });
    expect(sent.perMinute.completed).toHaveLength(60);
    expect(total(sent.perMinute.completed)).toBe(3);
    // Three in a window of 4 to 5 minutes.
    expect(sent.throughput.completed).toBeGreaterThanOrEqual(0.6);
    expect(sent.throughput.completed).toBeLessThanOrEqual(0.75);
    expect(sent.wait.p50).not.toBeNull();
    expect(sent.wait.p95).toBeGreaterThanOrEqual(sent.wait.p50!);

    // Later changes come through the change feed: two more sent, the pause lifted.
    const more = events(s.queue.events$, (e) => e.to === 'completed', 2);
    await s.queue.enqueueMany([
      { name: 'send', payload: 4 },
      { name: 'send', payload: 5 },
    ]);
    await more;
    await s.queue.resume('audit');
    const now = await overviewUntil(
      () => s.call('GET', '/v1/dashboard/overview', { headers: auth }),
      (r) => r.find((x) => x.name === 'send')?.counts.completed === 5 && r.find((x) => x.name === 'audit')?.paused === false,
    );
    const sentNow = now.find((r) => r.name === 'send')!;
    expect(sentNow.counts).toEqual({ completed: 5 });
    expect(total(sentNow.perMinute.completed)).toBe(5);
    expect(now.find((r) => r.name === 'audit')!.paused).toBe(false);
  });
});
