/**
 * `litejobs migrate --from <file> --to <postgres url>`: copies a SQLite
 * queue's jobs, their history and its paused names and cron schedules into a PostgreSQL schema,
 * resumably, then verifies the counts per state. The copy itself is in
 * src/migrate/; this module is the flags and the output.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { LitejobsError } from '../../errors.js';
import type { CopySummary } from '../../migrate/copy.js';
import { checkSchema } from '../../store/postgres/sql.js';
import { parseBatch, parseReserve } from '../args.js';
import { document } from '../command-docs.js';
import { CliFailure, ExitCode } from '../exit-codes.js';
import { formatDuration, table, toJson } from '../format.js';
import type { CliIO } from '../io.js';
import { isPostgres, queueTarget } from '../open-queue.js';

interface MigrateFlags {
  from: string;
  to: { connection: string; schema: string };
  batch: number;
  reserveIds: number;
  allowRunning?: boolean;
  quiet?: boolean;
  json?: boolean;
}

const DEFAULT_SCHEMA = 'litejobs';

export function registerMigrate(program: Command, io: CliIO): void {
  const cmd = program
    .command('migrate')
    .description(
      'Copy a SQLite queue (jobs with their history, paused names and cron schedules) into a PostgreSQL schema, then verify the counts per state. Resumable: run it again after an interruption, or after the switch-over to copy the jobs added since.',
    )
    .addOption(new Option('--from <file>', 'the SQLite file to copy from (opened read-only)').argParser(parseSource).makeOptionMandatory())
    .addOption(
      new Option('--to <url>', 'the PostgreSQL queue to copy into: postgres://user@host/db?schema=litejobs (default schema litejobs)')
        .argParser(parseTarget)
        .makeOptionMandatory(),
    )
    .addOption(new Option('--batch <n>', 'jobs per transaction (1 to 100000)').argParser(parseBatch).default(2000))
    .addOption(
      new Option('--reserve-ids <n>', 'on the first run, ids kept free above the file\'s highest for the jobs its producers add until the switch-over ends')
        .argParser(parseReserve)
        .default(1_000_000),
    )
    .option('--allow-running', 'copy jobs under a live lease as they are instead of refusing (PostgreSQL workers retry them once their leases run out)')
    .option('--quiet', 'no progress on stderr')
    .option('--json', 'print a summary as JSON: copied, skipped, counts per state, ms')
    .action(async (flags: MigrateFlags) => runMigrate(flags, io));
  document(cmd, {
    examples: [
      "litejobs migrate --from ./litejobs.db --to 'postgres://app@db.internal/app'",
      "litejobs migrate --from /var/lib/app/jobs.db --to 'postgres://app@db.internal/app?schema=jobs' --batch 5000 --json",
    ],
    exitCodes: [
      [ExitCode.failure, 'runtime error: the file has live leases (LJ_ERR_MIGRATE_RUNNING), an id is held by another job (LJ_ERR_MIGRATE_CONFLICT), the counts differ (LJ_ERR_MIGRATE_VERIFY), or the run was interrupted'],
    ],
  });
}

async function runMigrate(flags: MigrateFlags, io: CliIO): Promise<void> {
  // Loaded here: --help and usage errors answer without loading the drivers.
  const [{ openSource }, { openTarget }, { copyJobs }, { createProgress }, { verificationError }] = await Promise.all([
    import('../../migrate/source.js'),
    import('../../migrate/target.js'),
    import('../../migrate/copy.js'),
    import('../migrate-progress.js'),
    import('../../migrate/verify.js'),
  ]);
  const started = Date.now();
  const source = openSource(flags.from);
  let target: ReturnType<typeof openTarget>;
  try {
    target = openTarget({ ...flags.to, identity: source.identity });
  } catch (err) {
    source.close();
    throw err;
  }
  const progress = flags.quiet ? undefined : createProgress(io.stderr, { now: Date.now });
  const interrupted = new AbortController();
  const unlisten = io.onInterrupt(() => interrupted.abort());
  let summary: CopySummary;
  try {
    summary = await copyJobs(source, target, {
      batch: flags.batch,
      reserve: flags.reserveIds,
      allowRunning: flags.allowRunning === true,
      now: Date.now,
      onProgress: progress?.update,
      signal: interrupted.signal,
    });
  } finally {
    progress?.end();
    unlisten();
    source.close();
    await target.close();
  }
  const ms = Date.now() - started;
  if (summary.interrupted) {
    throw new CliFailure(`interrupted: ${summary.copied} jobs copied by this run, up to id ${summary.pass.upTo}; run the same command again to continue`);
  }
  io.stdout.write(flags.json ? toJson(jsonSummary(summary, ms)) : render(summary, ms));
  if (!summary.verified) throw verificationError(summary.states!, summary.pass);
}

function jsonSummary(s: CopySummary, ms: number) {
  return {
    source: s.source,
    target: s.target,
    copied: s.copied,
    history: s.history,
    skipped: s.present + s.skipped.length,
    present: s.present,
    duplicateKeys: s.skipped,
    pass: s.pass,
    states: s.states,
    verified: s.verified,
    ms,
  };
}

function render(s: CopySummary, ms: number): string {
  const lines = [`copied ${s.copied} ${s.copied === 1 ? 'job' : 'jobs'} and ${s.history} history rows from ${s.source} to ${s.target} in ${formatDuration(ms)}`];
  if (s.pass.resumed) lines.push('went on from an interrupted run');
  if (s.present > 0) lines.push(`left ${s.present} jobs as they were: already copied by an earlier run`);
  for (const k of s.skipped) lines.push(`skipped job ${k.id}: its key "${k.key}" is held by job ${k.heldBy} in the target`);
  const rows = Object.entries(s.states ?? {})
    .filter(([, c]) => c.source > 0 || c.target > 0)
    .map(([state, c]) => [state, String(c.source), String(c.target), c.source === c.target ? 'ok' : 'DIFFERS']);
  const range = s.pass.upTo > s.pass.from ? `ids ${s.pass.from + 1} to ${s.pass.upTo}` : 'no new jobs';
  const verdict = s.verified ? `verified: the counts per state match (${range})` : `NOT verified: the counts per state differ (${range})`;
  return `${lines.join('\n')}\n\n${table(['STATE', 'SQLITE', 'POSTGRESQL', ''], rows)}${verdict}\n`;
}

function parseSource(text: string): string {
  if (isPostgres(text)) throw new InvalidArgumentError('--from is the SQLite file; the PostgreSQL URL goes to --to.');
  return text;
}

function parseTarget(text: string): { connection: string; schema: string } {
  if (!isPostgres(text)) throw new InvalidArgumentError('a postgres:// URL, such as postgres://user@host/db?schema=litejobs.');
  try {
    const target = queueTarget(text) as { connection: string; schema?: string };
    return { connection: target.connection, schema: checkSchema(target.schema ?? DEFAULT_SCHEMA) };
  } catch (err) {
    if (err instanceof LitejobsError || err instanceof CliFailure) throw new InvalidArgumentError(err.message);
    throw err;
  }
}
