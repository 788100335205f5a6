/** `litejobs doctor`: integrity, file and WAL sizes, page cache, expired leases. Exit 1 when the integrity check fails. */
import type { Command } from 'commander';
import type { Queue } from '../../queue.js';
import { document } from '../command-docs.js';
import { CliFailure, ExitCode } from '../exit-codes.js';
import { formatBytes, toJson } from '../format.js';
import type { CliIO } from '../io.js';
import { withQueue } from '../open-queue.js';

export type Diagnosis = Awaited<ReturnType<Queue['diagnose']>>;

export function registerDoctor(program: Command, io: CliIO): void {
  const cmd = program
    .command('doctor')
    .description('Check the database: integrity, file and WAL sizes, page cache, and leases that expired (jobs held by a worker that stopped).')
    .option('--no-integrity', 'skip the integrity check (it reads the whole file)')
    .option('--json', 'print the diagnosis as JSON, with `ok`')
    .action(async (flags: { integrity: boolean; json?: boolean }, self: Command) => {
      const d = await withQueue(self, io, (queue) => queue.diagnose({ integrity: flags.integrity }));
      const ok = d.integrity === undefined || isSound(d.integrity);
      io.stdout.write(flags.json ? toJson({ ok, ...d }) : renderDiagnosis(d));
      if (!ok) throw new CliFailure(`integrity check failed: ${d.integrity![0] ?? 'no result'}`);
    });
  document(cmd, {
    examples: ['litejobs doctor', 'litejobs doctor --json --no-integrity'],
    exitCodes: [
      [ExitCode.ok, 'the database is sound (expired leases are reported, not failures: a running queue takes them back)'],
      [ExitCode.failure, 'the integrity check failed, or the database cannot be opened'],
    ],
  });
}

function isSound(integrity: readonly string[]): boolean {
  return integrity.length === 1 && integrity[0] === 'ok';
}

export function renderDiagnosis(d: Diagnosis): string {
  const rows: Array<[string, string]> = [
    ['store', d.store],
    ['path', d.path],
    ['database file', `${formatBytes(d.fileBytes)} (${d.pageCount} pages of ${d.pageSize} B, ${d.freePages} free)`],
    ['WAL', formatBytes(d.walBytes)],
    ['page cache', formatBytes(d.cacheBytes)],
    ['journal mode', d.journalMode],
    ['expired leases', d.expiredLeases === 0 ? '0' : `${d.expiredLeases} (jobs held by a worker that stopped renewing its lease; a running queue takes them back)`],
    ['integrity', d.integrity === undefined ? 'not checked' : isSound(d.integrity) ? 'ok' : `FAILED\n${d.integrity.flatMap((line) => line.split('\n')).map((line) => `    ${line}`).join('\n')}`],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  return `${rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n')}\n`;
}
