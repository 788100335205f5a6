import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { defineJob } from '../../src/index.js';
import { useServers } from '../helpers/http-server.js';
import { makeUpNames } from '../helpers/made-up-names.js';
import { TEST_STORE } from '../helpers/queue-fixture.js';
import { events } from '../helpers/wait.js';

const serve = useServers();

/** `name{labels} value` lines of a Prometheus text page, by series. */
function parse(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

describe('GET /metrics', () => {
  it('exposes jobs by state and name, transitions, handler durations, lag, claim batches and the WAL size', async () => {
    const s = await serve({
      queue: {
        jobs: [
          defineJob({ name: 'ok', handler: () => 'done' }),
          defineJob({ name: 'bad', retry: { attempts: 1 }, handler: () => { throw new Error('no'); } }),
        ],
      },
    });
    // The plugin subscribes when it registers: enqueue after, so every transition is counted.
    const finished = events(s.queue.events$, (e) => e.to === 'completed' || e.to === 'dead', 6);
    await s.queue.enqueueMany([...Array(5)].map((_, i) => ({ name: 'ok', payload: i })));
    await s.queue.enqueue('bad', {});
    await s.queue.enqueue('later', {}, { delay: 60_000 });
    await s.queue.start();
    await finished;
    const res = await fetch(`${s.url}/metrics`);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const m = parse(await res.text());
    expect(m.get('litejobs_jobs{state="completed",name="ok"}')).toBe(5);
    expect(m.get('litejobs_jobs{state="dead",name="bad"}')).toBe(1);
    expect(m.get('litejobs_jobs{state="pending",name="later"}')).toBe(1);
    expect(m.get('litejobs_transitions_total{from="none",to="pending"}')).toBe(7);
    expect(m.get('litejobs_transitions_total{from="pending",to="processing"}')).toBe(6);
    expect(m.get('litejobs_transitions_total{from="processing",to="completed"}')).toBe(5);
    expect(m.get('litejobs_transitions_total{from="processing",to="dead"}')).toBe(1);
    expect(m.get('litejobs_handler_duration_seconds_count{name="ok",to="completed"}')).toBe(5);
    expect(m.get('litejobs_handler_duration_seconds_count{name="bad",to="dead"}')).toBe(1);
    expect(m.get('litejobs_enqueue_to_start_seconds_count{name="ok"}')).toBe(5);
    const batches = m.get('litejobs_claim_batch_size_count') ?? 0;
    expect(batches).toBeGreaterThanOrEqual(1);
    expect(m.get('litejobs_claim_batch_size_sum')).toBe(6);
    // PostgreSQL's write-ahead log is the server's, shared by every database: reported as 0.
    if (TEST_STORE === 'sqlite') expect(m.get('litejobs_wal_bytes')).toBeGreaterThan(0);
    else expect(m.get('litejobs_wal_bytes')).toBe(0);
    expect(m.get('litejobs_expired_leases')).toBe(0);
    expect(m.has('litejobs_paused{name="ok"}')).toBe(false);

    await s.queue.pause('ok');
    // stats() counts the whole jobs table: a scrape reads it once for all the gauges that need it.
    const stats = s.queue.stats.bind(s.queue);
    let reads = 0;
    s.queue.stats = () => {
      reads++;
      return stats();
    };
    const paused = parse(await (await fetch(`${s.url}/metrics`)).text());
    expect(paused.get('litejobs_paused{name="ok"}')).toBe(1);
    expect(paused.get('litejobs_jobs{state="completed",name="ok"}')).toBe(5);
    expect(reads).toBe(1);
  });

  it('passes promtool check metrics, process metrics included, after jobs ran', async () => {
    const s = await serve({ queue: { jobs: [defineJob({ name: 'ok', handler: () => 'done' })] }, server: { metrics: { processMetrics: true } } });
    const done = events(s.queue.events$, (e) => e.to === 'completed', 3);
    await s.queue.enqueueMany([1, 2, 3].map((n) => ({ name: 'ok', payload: n })));
    await s.queue.start();
    await done;
    const text = await (await fetch(`${s.url}/metrics`)).text();
    expect(text).toContain('litejobs_process_nodejs_active_handles{');
    expect(text).not.toContain('_active_handles_total');
    // Debian's prometheus package (installed by .ci/run) ships promtool.
    const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(check.error, 'promtool is missing: apt-get install prometheus (.ci/run does)').toBeUndefined();
    expect({ status: check.status, out: `${check.stdout}${check.stderr}`.trim() }).toEqual({ status: 0, out: '' });
  });

  it('bounds the names it lists: made-up names beyond a hundred are summed as name="(other)" in /v1/stats, /metrics and the pause gauge; the queue\'s own are always listed', async () => {
    const s = await serve({ queue: { jobs: [defineJob({ name: 'own', handler: () => undefined })] } });
    const made = await makeUpNames(s.queue);
    for (const name of made.slice(0, 120)) await s.queue.pause(name);
    const stats = (await s.call('GET', '/v1/stats')).body;
    const listed = Object.keys(stats.byName);
    expect(listed).toHaveLength(100);
    expect(listed).toContain('own');
    expect(listed.filter((n: string) => n !== 'own').every((n: string) => made.indexOf(n) < 120)).toBe(true);
    expect(stats.otherNames).toEqual({ names: 51, byState: { pending: 2 * 120 + 30 - 2 * 99 } });
    expect(stats.total).toBe(1 + 2 * 120 + 30);
    expect(stats.paused.names).toHaveLength(100);
    expect(stats.paused.more).toBe(20);

    const res = await fetch(`${s.url}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    const jobs = text.split('\n').filter((line) => line.startsWith('litejobs_jobs{'));
    expect(jobs).toHaveLength(101);
    expect(jobs).toContain(`litejobs_jobs{state="pending",name="(other)"} ${2 * 120 + 30 - 2 * 99}`);
    expect(text).toContain('litejobs_paused{name="(other)"} 20');
    expect(text.split('\n').filter((line) => line.startsWith('litejobs_paused{'))).toHaveLength(101);
  });

  it('is absent with metrics: false', async () => {
    const s = await serve({ server: { metrics: false } });
    const r = await s.call('GET', '/metrics');
    expect([r.status, r.body.error.code]).toEqual([404, 'LJ_ERR_NOT_FOUND']);
  });

  it('counts a job named __proto__ like any other, in stats, the dashboard and the metrics', async () => {
    const s = await serve();
    await s.queue.enqueueMany([{ name: '__proto__', payload: 1 }, { name: 'plain', payload: 2 }]);
    const stats = (await s.call('GET', '/v1/stats')).body;
    expect(Object.keys(stats.byName).sort()).toEqual(['__proto__', 'plain']);
    expect(Object.entries(stats.byName).find(([name]) => name === '__proto__')?.[1]).toEqual({ pending: 1 });
    const m = parse(await (await fetch(`${s.url}/metrics`)).text());
    expect(m.get('litejobs_jobs{state="pending",name="__proto__"}')).toBe(1);
    const counts = (await s.call('GET', '/v1/dashboard/counts')).body;
    expect(Object.keys(counts.names.pending).sort()).toEqual(['__proto__', 'plain']);
  });
});
