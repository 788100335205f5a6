/**
 * `send()` takes the caller's events only. The runtime's own events carry
 * facts a caller cannot vouch for: `job.claim` would leave a job processing
 * with no lease, `job.complete` would complete a running job with no result.
 * And should a job ever sit in processing without a lease, the sweeper
 * treats it as expired instead of leaving it there forever.
 */
import { describe, expect, it } from 'vitest';
import { defineJob, ValidationError } from '../../src/index.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { nextEvent } from '../helpers/wait.js';

const fx = useQueues();

describe('send() and the runtime events', () => {
  it.each(['job.claim', 'job.complete', 'job.fail', 'job.expire', 'job.release'])('refuses %s with a typed error and writes nothing', async (type) => {
    const q = fx.open();
    const { id } = await q.enqueue('j', {});
    const before = await q.history(id);
    const err = await q.send(id, { type }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(err).toMatchObject({ code: 'LJ_ERR_VALIDATION' });
    expect(await q.getJob(id)).toMatchObject({ state: 'pending', attempts: 0 });
    expect(await q.history(id)).toEqual(before);
  });

  it('the sweeper expires a processing job that has no lease at all', async () => {
    const q = fx.open({ lease: 400, jobs: [defineJob({ name: 'j', handler: () => 'ok' })] });
    const { id } = await q.enqueue('j', {}, { delay: 60_000 });
    // A job left in processing without lease columns (as an older release's send('job.claim') could leave one).
    await fx.sql("UPDATE jobs SET state = 'processing', attempts = 1, lease_token = NULL, locked_until = NULL WHERE id = ?", [id]);
    const done = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'completed', 10_000);
    await q.start();
    await done;
    const history = await q.history(id);
    expect(history.map((t) => t.event)).toContain('job.expire');
    expect(await q.getJob(id)).toMatchObject({ state: 'completed' });
  });
});
