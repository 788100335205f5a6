import { defineConfig } from 'vitest/config';

/**
 * Tests of the queue's behaviour that do not look into the SQLite file: they
 * run a second time on PostgreSQL (the store conformance project), each test
 * in a schema of its own on the local server.
 */
const POSTGRES_CONFORMANCE = [
  'test/http/dashboard.live.test.ts',
  'test/integration/custom-machine.test.ts',
  'test/integration/dashboard.live-counts.test.ts',
  'test/integration/declare-job.test.ts',
  'test/integration/handler.outcomes.test.ts',
  'test/integration/history.candidate.test.ts',
  'test/integration/retry.policy.test.ts',
  'test/integration/webhook.delivery.test.ts',
];

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two cores: the multi-process tests start their own children.
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'sqlite', include: ['test/**/*.test.ts'] } },
      { extends: true, test: { name: 'postgres', include: POSTGRES_CONFORMANCE, env: { LITEJOBS_TEST_STORE: 'postgres' } } },
    ],
  },
});
