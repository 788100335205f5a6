import { defineConfig } from 'vitest/config';

/**
 * Tests of the queue's behaviour that hold for every store: they run a second
 * time on PostgreSQL (the store conformance project), each test in a schema
 * of its own on the local server. They reach the tables through the fixture
 * (`fx.sql`), never the SQLite file; where the stores differ by design
 * (backups, the WAL, diagnose), a test asserts each store's own answer.
 */
const POSTGRES_CONFORMANCE = [
  'test/http/api.auth.test.ts',
  'test/http/api.bad-input.test.ts',
  'test/http/api.hooks.test.ts',
  'test/http/api.jobs.test.ts',
  'test/http/api.job-actions.test.ts',
  'test/http/api.job-logs.test.ts',
  'test/http/api.limits.test.ts',
  'test/http/api.flows.test.ts',
  'test/http/api.payload-schema.test.ts',
  'test/http/api.schedules.test.ts',
  'test/http/dashboard.api.test.ts',
  'test/http/dashboard.live.test.ts',
  'test/http/dashboard.overview.test.ts',
  'test/http/metrics.test.ts',
  'test/integration/cli.job-logs.test.ts',
  'test/integration/custom-machine.test.ts',
  'test/integration/dashboard.live-counts.test.ts',
  'test/integration/declare-job.test.ts',
  'test/integration/enqueue.ready-now.claim-only.test.ts',
  'test/integration/enqueue.bad-input.test.ts',
  'test/integration/enqueue-many.ids.test.ts',
  'test/integration/enqueue.payload-schema.test.ts',
  'test/integration/enqueue.unique.test.ts',
  'test/integration/throttle.retention.test.ts',
  'test/integration/progress.test.ts',
  'test/integration/job-messages.test.ts',
  'test/integration/job-values.test.ts',
  'test/http/api.signals.test.ts',
  'test/integration/limits.runtime.test.ts',
  'test/integration/job-follow.races.test.ts',
  'test/integration/pools.test.ts',
  'test/integration/flows.test.ts',
  'test/integration/groups.limits.test.ts',
  'test/integration/limits.clock-skew.test.ts',
  'test/integration/handler.outcomes.test.ts',
  'test/integration/history.candidate.test.ts',
  'test/integration/job-actions.test.ts',
  'test/integration/job-result.test.ts',
  'test/integration/job-ids.never-reused.test.ts',
  'test/integration/job-logs.test.ts',
  'test/integration/lease.expiry.test.ts',
  'test/integration/prefetch.after-quick-jobs.test.ts',
  'test/integration/prefetch.retention.test.ts',
  'test/integration/queue.control.test.ts',
  'test/integration/queue.lifecycle.test.ts',
  'test/integration/queue.options.test.ts',
  'test/integration/queue.pause.test.ts',
  'test/integration/queue.watch.test.ts',
  'test/integration/retry.policy.test.ts',
  'test/integration/runs.no-overlap.test.ts',
  'test/integration/runs.hold-across-connections.test.ts',
  'test/integration/schedule.one-job-per-slot.test.ts',
  'test/integration/scheduler.far-future.test.ts',
  'test/integration/send.runtime-events.test.ts',
  'test/integration/stale-reads.across-connections.test.ts',
  'test/integration/start-check.lost-lease.test.ts',
  'test/integration/start-check.slow-claim.test.ts',
  'test/integration/shutdown.under-load.test.ts',
  'test/integration/steps.durable.test.ts',
  'test/integration/sweep.stuck-delayed.test.ts',
  'test/integration/retention.by-count.test.ts',
  'test/integration/manual-jobs.test.ts',
  'test/integration/schedule.job-schedulers.test.ts',
  'test/integration/retention.across-processes.test.ts',
  'test/integration/enqueue.lifo.test.ts',
  'test/integration/retention.kept-outcome.test.ts',
  'test/integration/telemetry.traces.test.ts',
  'test/integration/store.next-due.test.ts',
  'test/integration/store.logs.test.ts',
  'test/integration/store.steps.test.ts',
  'test/integration/threads.queue.test.ts',
  'test/integration/webhook.delivery.test.ts',
  'test/integration/workers.process-registry.test.ts',
  'test/property/claim.no-double-claim.test.ts',
  'test/property/flows.parent-once.test.ts',
  'test/property/limits.never-exceeded.test.ts',
  'test/property/engine.model.test.ts',
  'test/property/store.model.test.ts',
  'test/property/unique.one-holder.test.ts',
];

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    setupFiles: ['test/setup/after-each.ts'],
    pool: 'forks',
    // Two cores, three workers: a third of the suite's time is waiting (on
    // child processes, PostgreSQL, timers), which a third worker fills.
    // Measured: 263 s with two, 226 s with three; green with two busy loops
    // beside it (LITEJOBS_TEST_CPU_LOG says where each file's CPU goes).
    maxWorkers: 3,
    // A worker runs file after file without loading the modules again:
    // loading src/ and its dependencies took ~0.6 s of CPU per file, a
    // quarter of the suite. Every file opens its own queues on its own
    // files or schemas; helpers with state of their own clean up through
    // helpers/after-each.ts.
    isolate: false,
    projects: [
      { extends: true, test: { name: 'sqlite', include: ['test/**/*.test.ts'] } },
      { extends: true, test: { name: 'postgres', include: POSTGRES_CONFORMANCE, env: { LITEJOBS_TEST_STORE: 'postgres' } } },
    ],
  },
});
