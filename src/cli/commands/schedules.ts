/** `litejobs schedules`: the cron schedules stored in the queue, with their next run times. */
import type { Command } from 'commander';
import type { ScheduleView } from '../../engine/core/schedules.js';
import { document } from '../command-docs.js';
import { formatDuration, formatRelative, formatTime, table, toJson } from '../format.js';
import type { CliIO } from '../io.js';
import { withQueue } from '../open-queue.js';

export function registerSchedules(program: Command, io: CliIO): void {
  const cmd = program
    .command('schedules')
    .description('List the schedules stored in the queue (defineJob schedule, queue.schedule): cron expressions and intervals, with their last and next run times and how many jobs each fired. Any started queue on the database fires them.')
    .option('--json', 'print the schedules as JSON')
    .action(async (flags: { json?: boolean }, self: Command) => {
      await withQueue(self, io, async (queue) => {
        const schedules = await queue.schedules();
        io.stdout.write(flags.json ? toJson(schedules) : renderSchedules(schedules, Date.now()));
      });
    });
  document(cmd, {
    examples: ['litejobs schedules', 'litejobs schedules --json'],
  });
}

const when = (at: Date | null, now: number, none: string) => (at === null ? none : `${formatTime(at)} (${formatRelative(at, now)})`);

export function renderSchedules(schedules: readonly ScheduleView[], now: number): string {
  if (schedules.length === 0) return 'no schedules\n';
  // The id and the run count only where some schedule has an id of its own or a limit: the table stays as it was otherwise.
  const more = schedules.some((s) => s.id !== s.name || s.limit !== null);
  return table(
    ['NAME', 'CRON', 'TZ', 'MISSED', 'NEXT RUN', 'LAST RUN', ...(more ? ['ID', 'RUNS'] : [])],
    schedules.map((s) => [
      s.name,
      s.cron ?? `every ${formatDuration(s.every!)}`,
      s.cron === null ? '-' : (s.tz ?? 'local'),
      s.missed,
      when(s.nextRunAt, now, 'never'),
      when(s.lastRunAt, now, '-'),
      ...(more ? [s.id, s.limit === null ? String(s.count) : `${s.count}/${s.limit}`] : []),
    ]),
  );
}
