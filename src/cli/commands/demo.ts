/** `litejobs demo`: `serve` with sample jobs and a flaky local webhook receiver, printing where to look. */
import { Option, type Command } from 'commander';
import { pino } from 'pino';
import { parsePort, parseRate, parseSeed } from '../args.js';
import { document } from '../command-docs.js';
import { demoEnqueues, demoJobs, sampleFlow, sampleJob, SCHEDULED_SAMPLE } from '../demo-jobs.js';
import { seededRandom, startDemoSink } from '../demo-sink.js';
import type { CliIO } from '../io.js';
import { databaseOf } from '../open-queue.js';
import { prettyLines } from '../pretty-lines.js';

export function registerDemo(program: Command, io: CliIO): void {
  const cmd = program
    .command('demo')
    .description('Run the service with sample jobs and a local webhook receiver that fails now and then; prints the URLs to look at. Ctrl+C stops it.')
    .addOption(new Option('--port <port>', 'the API port (the receiver takes the next one; 0: any free ports)').argParser(parsePort).default(3000))
    .addOption(new Option('--seed <n>', "seed the receiver's failures: the same seed fails the same requests").argParser(parseSeed))
    .addOption(new Option('--rate <n>', 'sample jobs enqueued per second after the first ones (0: none)').argParser(parseRate).default(2))
    .option('--read-only', 'change nothing over HTTP: no actions, no enqueueing, no hooks (the dashboard says so)')
    .option('--log-json', "log pino's JSON lines instead of readable ones")
    .option('--no-schedule', 'leave out the sample cron schedule (a job every 30 s)')
    .action(async (flags: { port: number; seed?: number; rate: number; readOnly?: boolean; logJson?: boolean; schedule: boolean }, self: Command) => {
      const path = databaseOf(self);
      // Readable lines, piped or not (a newcomer reads them); JSON on request.
      const level = process.env.LITEJOBS_LOG_LEVEL ?? 'info';
      const logger = flags.logJson ? pino({ level }) : pino({ level }, prettyLines(io.stdout));
      const random = flags.seed === undefined ? Math.random : seededRandom(flags.seed);
      const sink = await startDemoSink({ port: flags.port === 0 ? 0 : flags.port + 1, random });
      try {
        // Loaded here, not at the top: fastify and undici would slow every other command's start.
        const { startService } = await import('../service.js');
        const service = await startService({
          path,
          host: '127.0.0.1',
          port: flags.port,
          concurrency: 4,
          durability: 'normal',
          jobs: flags.schedule ? demoJobs : demoJobs.filter((job) => job.name !== SCHEDULED_SAMPLE),
          logger,
          drainMs: 10_000,
          readOnly: flags.readOnly === true,
          hooks: { demo: { deliverTo: `${sink.url}/hooks` } },
          // The demo's receiver runs on this machine: the webhook job may send to it, and only to it.
          deliverTo: [`${sink.url}/`],
          allowPrivateTargets: true,
        });
        const results = await service.queue.enqueueMany(demoEnqueues(sink.url));
        const api = service.server.url;
        io.stdout.write(
          [
            '',
            `litejobs demo on ${path}: ${results.filter((r) => r.created).length} jobs enqueued (${results.filter((r) => !r.created).length} already there)`,
            `  dashboard    ${api}/`,
            `  stats        ${api}/v1/stats`,
            `  jobs         ${api}/v1/jobs?state=completed`,
            `  metrics      ${api}/metrics`,
            `  receiver     ${sink.url}  (fails ~1 in 5, rate-limits ~1 in 10)`,
            `  send a hook  curl -s ${api}/v1/hooks/demo -H 'content-type: application/json' -d '{"hello":"world"}'`,
            `  from a shell litejobs stats --watch --db ${path}`,
            '  Ctrl+C stops it.',
            '',
          ].join('\n'),
        );
        // A steady trickle, so the dashboard has something moving; ends with the queue.
        let sent = 0;
        const trickle =
          flags.rate > 0
            ? setInterval(() => {
                const job = sampleJob(++sent, random);
                // One in 20 is a flow: the dashboard shows a parent waiting for its children.
                const enqueued = sent % 20 === 0 ? service.queue.enqueueFlow(sampleFlow(sent)) : service.queue.enqueue(job.name, job.payload, job.options);
                enqueued.catch(() => clearInterval(trickle));
              }, 1000 / flags.rate)
            : undefined;
        await service.closed;
        clearInterval(trickle);
      } finally {
        await sink.close();
      }
    });
  document(cmd, { examples: ['litejobs demo', 'litejobs demo --port 0 --db /tmp/demo.db'] });
}
