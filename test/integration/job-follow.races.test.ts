/**
 * `litejobs job <id> --follow`'s ends that the feed alone does not show
 * (followJob, in process, on either store): a finish between its two reads,
 * a job removed while followed, a job deleted as it finished (retention 0),
 * a finish made with `history: false`, and Ctrl-C.
 */
import { describe, expect, it } from 'vitest';
import { followJob, type Followed } from '../../src/cli/commands/job-follow.js';
import type { CliIO } from '../../src/cli/io.js';
import { defineJob, type Queue } from '../../src/index.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { waitFor } from '../helpers/wait.js';

const fx = useQueues();
const JOBS = [defineJob({ name: 'x', handler: () => 1 })];

/** Stdout as text, and a Ctrl-C the test can press. */
function testIO() {
  let out = '';
  let interrupt: (() => void) | undefined;
  const io = {
    stdout: {
      write: (s: string) => {
        out += s;
        return true;
      },
    },
    stderr: { write: () => true },
    onInterrupt: (handler: () => void) => {
      interrupt = handler;
      return () => {
        interrupt = undefined;
      };
    },
  } as unknown as CliIO;
  return { io, out: () => out, press: () => interrupt?.() };
}

const follow = (queue: Queue, id: number, io: CliIO, printed: Followed[] = []) => followJob(queue, id, io, { json: true, print: (read) => printed.push(read) });

/** Follows the job until its first print (the job and its timeline read, the watch under way). */
async function following(queue: Queue, id: number) {
  const t = testIO();
  const printed: Followed[] = [];
  const done = follow(queue, id, t.io, printed);
  await waitFor(() => printed.length === 1);
  return { t, done };
}

describe('job --follow ends', () => {
  it('when the job finished between the read of the job and the read of its timeline', async () => {
    const queue = fx.open({ jobs: JOBS });
    const { id } = await queue.enqueue('x', {});
    const taken = (await queue.take())!;
    // The job is read as processing; it completes before its timeline is read.
    const racing = Object.create(queue) as Queue;
    racing.getJob = async (i: number) => {
      const job = await queue.getJob(i);
      await queue.complete(taken, 'done');
      racing.getJob = (j: number) => queue.getJob(j);
      return job;
    };
    const t = testIO();
    const printed: Followed[] = [];
    await follow(racing, id, t.io, printed);
    expect(printed[0]!.job.state).toBe('processing');
    expect(printed[0]!.history.at(-1)!.to).toBe('completed');
  });

  it('with an error when the job is removed while followed', async () => {
    const queue = fx.open({ jobs: JOBS });
    const { id } = await queue.enqueue('x', {});
    const f = await following(queue, id);
    await queue.remove(id);
    await expect(f.done).rejects.toMatchObject({ message: `job ${id} was removed while followed` });
  });

  it('with the result of a job deleted as it finished (retention 0)', async () => {
    const queue = fx.open({ jobs: JOBS, retention: { completed: 0 } });
    const { id } = await queue.enqueue('x', {});
    const taken = (await queue.take())!;
    const f = await following(queue, id);
    await queue.complete(taken, { pages: 3 });
    await f.done;
    expect(f.t.out()).toContain('"to":"completed"');
  });

  it('when a worker without history finished the job (read again each second)', async () => {
    const queue = fx.open({ jobs: JOBS });
    const quiet = fx.open({ jobs: JOBS, history: false });
    const { id } = await queue.enqueue('x', {});
    const taken = (await quiet.take())!;
    const f = await following(queue, id);
    await quiet.complete(taken, 'done');
    await f.done;
    // No history row showed it: nothing printed after the job, which ended all the same.
    expect(f.t.out()).toBe('');
  });

  it('at once on Ctrl-C, with exit code 0', async () => {
    const queue = fx.open({ jobs: JOBS });
    const { id } = await queue.enqueue('x', {});
    const f = await following(queue, id);
    f.t.press();
    await f.done;
  });
});
