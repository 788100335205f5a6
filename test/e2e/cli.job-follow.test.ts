/**
 * `litejobs job <id> --follow` in a child process, while this process runs
 * the job: it prints the job, then each progress value and move as it comes,
 * and ends with the job (exit code 0 when it completed, 1 when it died).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createQueue, defineJob, type HandlerContext } from '../../src/index.js';
import { CLI_TEST_TIMEOUT, startCli } from '../helpers/cli.js';
import { silentLogger } from '../helpers/silent-logger.js';
import { tempDbPath } from '../helpers/temp-db.js';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

function dbPath(): string {
  const db = tempDbPath();
  cleanup = db.cleanup;
  return db.path;
}

/** A handler that reports each value in `steps` once the test lets it go on (`next()`), then ends as `end` says. */
function stepped(steps: readonly unknown[], end: 'complete' | 'die') {
  const gates: Array<() => void> = [];
  const next = () => gates.shift()?.();
  const handler = async (_: unknown, ctx: HandlerContext) => {
    for (const value of steps) {
      await new Promise<void>((go) => gates.push(go));
      await ctx.progress(value);
    }
    await new Promise<void>((go) => gates.push(go));
    if (end === 'die') throw new Error('out of paper');
    return { pages: 12 };
  };
  return { handler, next, waiting: () => gates.length > 0 };
}

async function until(cond: () => boolean): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('litejobs job --follow', () => {
  it('prints each progress value and move as another process makes it, and the result', async () => {
    const db = dbPath();
    const s = stepped([25, { done: 3, of: 4 }], 'complete');
    const queue = createQueue({ path: db, logger: silentLogger, jobs: [defineJob({ name: 'print', handler: s.handler })] });
    const { id } = await queue.enqueue('print', {});
    await queue.start();
    await until(s.waiting);
    const cli = startCli(['job', String(id), '--follow', '--db', db]);
    await cli.waitForOutput(/following/);
    s.next();
    await cli.waitForOutput(/progress 25\n/);
    s.next();
    await cli.waitForOutput(/progress \{"done":3,"of":4\}\n/);
    s.next();
    const end = await cli.done;
    await queue.close();
    expect(end.code).toBe(0);
    const out = end.stdout;
    expect(out).toMatch(/state\s+processing/);
    // In order: progress, progress, the completion, the result; the claim (in the printed timeline) not again.
    const follow = out.slice(out.indexOf('following'));
    expect(follow.split('\n').filter((l) => /progress|→|result/.test(l)).map((l) => l.replace(/^\S+ \S+ {2}/, ''))).toEqual([
      'progress 25',
      'progress {"done":3,"of":4}',
      'processing → completed  job.complete',
      'result {"pages":12}',
    ]);
  }, CLI_TEST_TIMEOUT);

  it('--json prints the job, then one change a line; a job that dies ends the command with exit code 1', async () => {
    const db = dbPath();
    const s = stepped(['half'], 'die');
    const queue = createQueue({ path: db, logger: silentLogger, jobs: [defineJob({ name: 'print', retry: { attempts: 1 }, handler: s.handler })] });
    const { id } = await queue.enqueue('print', {});
    await queue.start();
    await until(s.waiting);
    const cli = startCli(['job', String(id), '--follow', '--json', '--db', db]);
    await cli.waitForOutput(/"history"/);
    s.next();
    await cli.waitForOutput(/"progress":"half"/);
    s.next();
    const end = await cli.done;
    await queue.close();
    expect(end.code).toBe(1);
    expect(end.stderr).toContain(`job ${id} ended dead: Error: out of paper`);
    const lines = end.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ id, state: 'processing' });
    expect(lines.slice(1).map((c) => [c.event, c.to, c.progress])).toEqual([
      ['job.progress', 'processing', 'half'],
      ['job.fail', 'dead', undefined],
    ]);
  }, CLI_TEST_TIMEOUT);
});
