/** `litejobs schedules`: the cron schedules stored in the queue, with their next run times. */
import type { Command } from 'commander';
import type { ScheduleView } from '../../engine/core/schedules.js';
import { document } from '../command-docs.js';
import { formatRelative, formatTime, table, toJson } from '../format.js';
import type { CliIO } from '../io.js';
import { withQueue } from '../open-queue.js';

export function registerSchedules(program: Command, io: CliIO): void {
  const cmd = program
    .command('schedules')
    .description('List the cron schedules stored in the queue (defineJob schedule, queue.schedule) with their last and next run times. Any started queue on the database fires them.')
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
  return table(
    ['NAME', 'CRON', 'TZ', 'MISSED', 'NEXT RUN', 'LAST RUN'],
    schedules.map((s) => [s.name, s.cron, s.tz ?? 'local', s.missed, when(s.nextRunAt, now, 'never'), when(s.lastRunAt, now, '-')]),
  );
}
