/** `litejobs stats`: counts by state and by name, and what is paused; `--watch` redraws until Ctrl+C. */
import { setTimeout as sleep } from 'node:timers/promises';
import { Option, type Command } from 'commander';
import { JobState } from '../../../machines/job.machine.js';
import type { Queue } from '../../queue.js';
import { parseInterval } from '../args.js';
import { document } from '../command-docs.js';
import { formatTime, table, toJson } from '../format.js';
import type { CliIO } from '../io.js';
import { withQueue } from '../open-queue.js';

/**
 * The queue's stats without `stuck`: that counts the runs of the process
 * asking, and this one runs none.
 */
export type StatsView = Omit<Awaited<ReturnType<Queue['stats']>>, 'stuck'>;

async function readStats(queue: Queue): Promise<StatsView> {
  const { stuck: _ownRuns, ...stats } = await queue.stats();
  return stats;
}

interface StatsFlags {
  watch?: boolean;
  interval: number;
  json?: boolean;
}

export function registerStats(program: Command, io: CliIO): void {
  const cmd = program
    .command('stats')
    .description('Count jobs by state and by name, and show what is paused. With --watch, redraw every interval until Ctrl+C.')
    .option('--watch', 'redraw in place every interval until Ctrl+C (exits 0)')
    .addOption(new Option('--interval <ms>', 'time between redraws with --watch, ms (50 to 86400000)').argParser(parseInterval).default(1000))
    .option('--json', 'print the counts as JSON (with --watch: one JSON line per interval)')
    .action(async (flags: StatsFlags, self: Command) => {
      await withQueue(self, io, async (queue) => {
        if (!flags.watch) {
          const stats = await readStats(queue);
          io.stdout.write(flags.json ? toJson(stats) : renderStats(stats));
          return;
        }
        await watch(queue, flags, io);
      });
    });
  document(cmd, {
    examples: ['litejobs stats', 'litejobs stats --watch --interval 500', 'litejobs stats --json'],
  });
}

/** Frames until SIGINT: redrawn in place on a terminal, one after another elsewhere (a pipe, a log). */
async function watch(queue: Queue, flags: StatsFlags, io: CliIO): Promise<void> {
  const interrupted = new AbortController();
  const unlisten = io.onInterrupt(() => interrupted.abort());
  const redraw = io.stdout.isTTY === true && !flags.json;
  let drawn = 0;
  try {
    while (!interrupted.signal.aborted) {
      const stats = await readStats(queue);
      if (flags.json) {
        io.stdout.write(`${JSON.stringify({ at: new Date(), ...stats })}\n`);
      } else {
        const frame = `litejobs stats at ${formatTime(new Date())} (every ${flags.interval} ms; Ctrl+C to stop)\n\n${renderStats(stats)}`;
        // Cursor up over the last frame, then clear to the end of the screen.
        if (redraw && drawn > 0) io.stdout.write(`\x1b[${drawn}A\x1b[J`);
        io.stdout.write(redraw ? frame : `${frame}\n`);
        drawn = frame.split('\n').length - 1;
      }
      await sleep(flags.interval, undefined, { signal: interrupted.signal }).catch(() => undefined);
    }
  } finally {
    unlisten();
  }
}

export function renderStats(stats: StatsView): string {
  const states = stateColumns(stats);
  const summary = states.filter((s) => (stats.byState[s] ?? 0) > 0).map((s) => `${stats.byState[s]} ${s}`);
  const lines = [`${stats.total} ${stats.total === 1 ? 'job' : 'jobs'}${summary.length ? `: ${summary.join(', ')}` : ''}`, `paused: ${describePaused(stats.paused)}`];
  const names = Object.keys(stats.byName).sort();
  if (names.length === 0) return `${lines.join('\n')}\n`;
  const rows = names.map((name) => {
    const counts = stats.byName[name]!;
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    const paused = stats.paused.names.includes(name) ? ' (paused)' : '';
    return [`${name}${paused}`, ...states.map((s) => String(counts[s] ?? 0)), String(total)];
  });
  // The names stats does not list (the most made up beyond the queue's own), summed on one row.
  const other = stats.otherNames;
  if (other) {
    const total = Object.values(other.byState).reduce((a, b) => a + b, 0);
    rows.push([`(${other.names} other names)`, ...states.map((s) => String(other.byState[s] ?? 0)), String(total)]);
  }
  return `${lines.join('\n')}\n\n${table(['NAME', ...states.map((s) => s.toUpperCase()), 'TOTAL'], rows)}`;
}

function describePaused(paused: StatsView['paused']): string {
  const names = [...paused.names].sort().join(', ') + (paused.more ? ` and ${paused.more} more` : '');
  if (paused.all) return names ? `the whole queue (and by name: ${names})` : 'the whole queue';
  return names || 'nothing';
}

/** States shown only when some job is in them: most queues never sleep or wait for children. */
const OCCASIONAL: readonly string[] = [JobState.sleeping, JobState.waitingMessage, JobState.waitingChildren];

/** The machine's own states in lifecycle order (the occasional ones when held), then any other state a custom machine uses. */
function stateColumns(stats: StatsView): string[] {
  const known: string[] = Object.values(JobState);
  const seen = new Set([...Object.keys(stats.byState), ...Object.values(stats.byName).flatMap((c) => Object.keys(c))]);
  return [...known.filter((s) => !OCCASIONAL.includes(s) || seen.has(s)), ...[...seen].filter((s) => !known.includes(s)).sort()];
}
