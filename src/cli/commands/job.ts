/** `litejobs job <id>`: one job, the timeline of its transitions with the time spent in each state, and its durable steps; or its log lines (`--logs`). */
import { Argument, type Command } from 'commander';
import { FINISHED_STATES } from '../../../machines/job.machine.js';
import type { Job, StepView, Transition } from '../../engine/core/job-view.js';
import { parseJobId } from '../args.js';
import { document } from '../command-docs.js';
import { CliFailure, ExitCode } from '../exit-codes.js';
import { formatDuration, formatRelative, formatTime, printable, table, toJson } from '../format.js';
import type { CliIO } from '../io.js';
import { withQueue } from '../open-queue.js';
import { readAllLogs, renderLogs } from './job-logs.js';
import { followJob } from './job-follow.js';

/** A transition and how long the job then stayed in its `to` state (null: it is still there). */
export type TimelineEntry = Transition & { durationMs: number | null };

export function registerJob(program: Command, io: CliIO): void {
  const cmd = program
    .command('job')
    .description('Show one job: its fields, payload, result, last error, the timeline of its transitions, and its completed steps; or, with --logs, the lines its handler logged.')
    .addArgument(new Argument('<id>', 'the job id').argParser(parseJobId))
    .option('--logs', 'print the lines its handler logged with ctx.log instead: time, attempt, level, message and fields')
    .option('--json', 'print the job, with its `history` and `steps`, as JSON (with --logs: `{ dropped, lines }`; with --follow: one object a line, the job then each change)')
    .option('--follow', 'then print each of its changes as it comes (moves, and ctx.progress() values), made by any process, until it finishes; exit code 1 unless it completed')
    .action(async (id: number, flags: { json?: boolean; logs?: boolean; follow?: boolean }, self: Command) => {
      if (flags.logs && flags.follow) throw new CliFailure('--logs and --follow cannot be combined', ExitCode.usage);
      if (flags.follow) {
        const json = flags.json === true;
        await withQueue(self, io, (queue) =>
          followJob(queue, id, io, {
            json,
            print: ({ job, history }) => {
              const timeline = toTimeline(history);
              io.stdout.write(json ? `${JSON.stringify({ ...job, history: timeline })}\n` : renderJob(job, timeline, Date.now()));
              if (!json && !FINISHED_STATES.includes(job.state)) io.stdout.write('\nfollowing (Ctrl-C to stop)\n');
            },
          }),
        );
        return;
      }
      if (flags.logs) {
        const logs = await withQueue(self, io, (queue) => readAllLogs(queue, id));
        io.stdout.write(flags.json ? toJson(logs) : renderLogs(id, logs));
        return;
      }
      const { job, history, steps } = await withQueue(self, io, async (queue) => ({
        job: await queue.getJob(id),
        history: await queue.history(id),
        steps: await queue.steps(id),
      }));
      const timeline = toTimeline(history);
      if (flags.json) io.stdout.write(toJson({ ...job, history: timeline, steps }));
      else io.stdout.write(renderJob(job, timeline, Date.now(), steps));
    });
  document(cmd, {
    examples: ['litejobs job 42', 'litejobs job 42 --json', 'litejobs job 42 --logs', 'litejobs job 42 --follow'],
    exitCodes: [[ExitCode.failure, 'runtime error: no job with this id (LJ_ERR_JOB_NOT_FOUND), the database cannot be opened, …; with --follow, the job ended dead or cancelled']],
  });
}

export function toTimeline(history: readonly Transition[]): TimelineEntry[] {
  return history.map((t, i) => {
    const next = history[i + 1];
    return { ...t, durationMs: next ? next.at.getTime() - t.at.getTime() : null };
  });
}

export function renderJob(job: Job, timeline: readonly TimelineEntry[], now: number, steps: readonly StepView[] = []): string {
  const fields: Array<[string, string]> = [
    ['state', job.state],
    ['attempts', String(job.attempts)],
    ['priority', String(job.priority)],
    ['key', job.key ?? '-'],
    ...(job.heldKey ? [[`${job.heldKey.kind} key`, job.heldKey.key] as [string, string]] : []),
    ...(job.group !== undefined ? [['group', job.group] as [string, string]] : []),
    ...(job.leaseOwner ? [['lease owner', job.leaseOwner] as [string, string]] : []),
    ['run at', `${formatTime(job.runAt)} (${formatRelative(job.runAt, now)})`],
    ['created', `${formatTime(job.createdAt)} (${formatRelative(job.createdAt, now)})`],
    ['updated', `${formatTime(job.updatedAt)} (${formatRelative(job.updatedAt, now)})`],
  ];
  if (job.progress !== undefined) fields.push(['progress', typeof job.progress === 'number' ? `${job.progress}` : JSON.stringify(job.progress)]);
  for (const [key, value] of Object.entries(job.published ?? {})) fields.push([`published ${key}`, JSON.stringify(value)]);
  fields.push(['payload', JSON.stringify(job.payload)]);
  if (job.result !== undefined) fields.push(['result', JSON.stringify(job.result)]);
  if (job.lastError) fields.push(['last error', `${job.lastError.name}: ${job.lastError.message}`]);
  const width = Math.max(...fields.map(([k]) => k.length));
  const lines = [`job ${job.id} ${printable(job.name)}`, ...fields.map(([k, v]) => `  ${k.padEnd(width)}  ${printable(v)}`), ''];
  if (timeline.length === 0) {
    lines.push('no recorded transitions (the queue keeps no history)');
    return `${lines.join('\n')}\n${renderSteps(steps)}`;
  }
  const last = timeline.at(-1)!;
  const rows = timeline.map((t) => [
    formatTime(t.at),
    `${t.from ?? '(new)'} → ${t.to}`,
    t.event,
    t.durationMs !== null ? formatDuration(t.durationMs) : t === last && !isFinal(job, t) ? `${formatDuration(now - t.at.getTime())} so far` : '-',
    t.error ? `${t.error.name}: ${t.error.message}` : '',
  ]);
  return `${lines.join('\n')}\ntimeline\n${indent(table(['AT', 'TRANSITION', 'EVENT', 'TIME IN STATE', 'ERROR'], rows))}${renderSteps(steps)}`;
}

/** The job's completed steps (ctx.step) and sleeps (ctx.sleep), in the order they completed; nothing when it took none. */
export function renderSteps(steps: readonly StepView[]): string {
  if (steps.length === 0) return '';
  const rows = steps.map((s) => [
    String(s.seq),
    s.name,
    formatTime(s.at),
    String(s.attempt),
    s.wakeAt ? `sleep until ${formatTime(s.wakeAt)}` : s.result === undefined ? '-' : truncate(JSON.stringify(s.result), 60),
  ]);
  return `\nsteps\n${indent(table(['SEQ', 'STEP', 'AT', 'ATTEMPT', 'RESULT'], rows))}`;
}

const truncate = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** The job sits in a state it will not leave by itself: the time since is not time spent waiting. */
function isFinal(job: Job, t: Transition): boolean {
  return t.to === job.state && FINISHED_STATES.includes(job.state);
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => (l === '' ? l : `  ${l}`))
    .join('\n');
}
