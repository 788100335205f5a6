/**
 * telemetry: what tracing costs. The same drain and enqueues with no
 * OpenTelemetry SDK registered (litejobs loads nothing of it then) and with
 * the SDK's tracer provider registered, every span batched to an exporter
 * that drops it (the cost of making the spans, not of shipping them).
 *
 * `LITEJOBS_BENCH_BASELINE=<git ref>` adds that commit's litejobs, with no
 * SDK, to the same alternating rounds (and a second copy of this build, to
 * show how far two copies of the same code differ): the zero-cost check of
 * a change.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { pino } from 'pino';
import type * as LitejobsModule from '../../src/index.js';
import { alternate, ratioCheck, ratios, roundsFor, throughput, WARMUP_NOTE, type Contender } from '../lib/rounds.js';
import { freshDbPath, removeDb } from '../lib/tmp.js';
import type { Scenario } from '../lib/types.js';

type Litejobs = Pick<typeof LitejobsModule, 'createQueue' | 'defineJob'>;
const silent = pino({ level: 'silent' });
const NO_SDK = 'no SDK';
const SDK = 'SDK, no-op exporter';
const TWIN = 'no SDK, a second copy';

/** Drops every span: the spans are made and batched, never sent. */
const dropAll: SpanExporter = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => undefined };

/** Runs `fn` with the SDK registered (as an application registers it), unregistered after. */
async function withSdk<T>(fn: () => Promise<T>): Promise<T> {
  const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(dropAll)] });
  trace.setGlobalTracerProvider(provider);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  try {
    return await fn();
  } finally {
    await provider.shutdown();
    trace.disable();
    context.disable();
  }
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * A copy of litejobs loaded beside this one (this checkout's node_modules):
 * the sources of `ref`, or this working tree's when `ref` is undefined. Each
 * contender runs a copy of its own: the untraced rounds run code the JIT
 * never saw tracing (as in an application with no SDK), and none runs the
 * module the bench itself loaded (measured 0.86× a copy of the same code).
 */
async function copyOf(ref: string | undefined, dir: string): Promise<Litejobs> {
  mkdirSync(dir, { recursive: true });
  if (ref === undefined) for (const part of ['src', 'machines', 'package.json']) cpSync(join(ROOT, part), join(dir, part), { recursive: true });
  else execFileSync('sh', ['-c', `git -C "${ROOT}" archive "${ref}" src machines package.json | tar -x -C "${dir}"`]);
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return (await import(join(dir, 'src', 'index.ts'))) as Litejobs;
}

export const telemetryScenario: Scenario = {
  name: 'telemetry',
  title: 'The cost of tracing: no SDK, and the SDK with a no-op exporter',
  async run(ctx) {
    const started = Date.now();
    const drainN = ctx.quick ? 3000 : 20_000;
    const oneN = ctx.quick ? 500 : 3000;
    const manyN = ctx.quick ? 5 : 20;
    const rounds = roundsFor(ctx, 5);
    const ref = process.env.LITEJOBS_BENCH_BASELINE;
    const versions: Array<[string, Litejobs, boolean]> = [
      [NO_SDK, await copyOf(undefined, join(ctx.tmpDir, 'untraced')), false],
      [SDK, await copyOf(undefined, join(ctx.tmpDir, 'traced')), true],
    ];
    // The same code again: how far two copies of one build differ in these rounds (the noise a change is measured against).
    if (ref) versions.push([TWIN, await copyOf(undefined, join(ctx.tmpDir, 'twin')), false], [`${ref}, no SDK`, await copyOf(ref, join(ctx.tmpDir, 'baseline')), false]);

    const contenders: Contender[] = [];
    for (const [label, lj, sdk] of versions) {
      const measured = (what: string, body: (lj: Litejobs, path: string) => Promise<number>): Contender => ({
        label: `${what}: ${label}`,
        system: 'litejobs',
        async run() {
          const path = freshDbPath(ctx.tmpDir, 'telemetry');
          try {
            const rate = await (sdk ? withSdk(() => body(lj, path)) : body(lj, path));
            return { rate };
          } finally {
            removeDb(path);
          }
        },
      });
      contenders.push(measured('drain', drain(drainN)), measured('enqueue', enqueueOne(oneN)), measured('enqueueMany ×1000', enqueueMany(manyN)));
    }
    const rows = await alternate(ctx, 'telemetry', rounds, contenders, { warmup: true, rotate: true });
    const pairs: Array<[string, string]> = [];
    for (const what of ['drain', 'enqueue', 'enqueueMany ×1000']) {
      pairs.push([`${what}: ${SDK}`, `${what}: ${NO_SDK}`]);
      if (ref) pairs.push([`${what}: ${NO_SDK}`, `${what}: ${TWIN}`], [`${what}: ${NO_SDK}`, `${what}: ${ref}, no SDK`]);
    }
    return {
      name: 'telemetry',
      title: this.title,
      description:
        'The drain (no-op handler, concurrency 16, defaults), awaited `enqueue` one at a time and `enqueueMany` of 1,000, each with no OpenTelemetry SDK registered and with the SDK tracing every job (a send span per enqueue, a process span per attempt) to an exporter that drops the spans.',
      metrics: [throughput],
      config: {
        warmup: WARMUP_NOTE,
        drain: `${drainN} jobs, concurrency 16`,
        enqueue: `${oneN} awaited calls`,
        enqueueMany: `${manyN} calls of 1,000 jobs`,
        sdk: '@opentelemetry/sdk-trace-base BasicTracerProvider + BatchSpanProcessor (defaults) + an exporter that drops, AsyncLocalStorageContextManager',
        ...(ref ? { baseline: `litejobs at ${ref} (LITEJOBS_BENCH_BASELINE), no SDK; and a second copy of this build, no SDK, for the noise` } : {}),
      },
      rounds,
      rows,
      ratios: ratios(rows, 'rate', pairs),
      checks: ref
        ? ['drain', 'enqueue', 'enqueueMany ×1000'].map((what) => ratioCheck(rows, 'rate', `${what}: ${NO_SDK}`, `${what}: ${ref}, no SDK`, 0.9, `${what} with no SDK ≥ 0.9× ${ref} (unchanged within the noise: two copies of one build differ by up to ~6% here)`))
        : [],
      notes: ['With no SDK registered, litejobs reads one global per operation and loads nothing of OpenTelemetry.'],
      skipped: [],
      durationMs: Date.now() - started,
      chartMetric: 'rate',
    };
  },
};

function drain(n: number) {
  return async (lj: Litejobs, path: string): Promise<number> => {
    const producer = lj.createQueue({ path, logger: silent });
    for (let i = 0; i < n; i += 1000) await producer.enqueueMany(Array.from({ length: Math.min(1000, n - i) }, (_, k) => ({ name: 'noop', payload: { i: i + k } })));
    await producer.close();
    let handled = 0;
    let reached!: () => void;
    const done = new Promise<void>((resolve) => (reached = resolve));
    const queue = lj.createQueue({ path, logger: silent, concurrency: 16, jobs: [lj.defineJob({ name: 'noop', handler: () => void (++handled === n && reached()) })] });
    const t0 = performance.now();
    await queue.start();
    await done;
    await queue.stop();
    const ms = performance.now() - t0;
    await queue.close();
    return n / (ms / 1000);
  };
}

function enqueueOne(n: number) {
  return async (lj: Litejobs, path: string): Promise<number> => {
    const queue = lj.createQueue({ path, logger: silent });
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await queue.enqueue('noop', { i });
    const ms = performance.now() - t0;
    await queue.close();
    return n / (ms / 1000);
  };
}

function enqueueMany(calls: number) {
  return async (lj: Litejobs, path: string): Promise<number> => {
    const queue = lj.createQueue({ path, logger: silent });
    const t0 = performance.now();
    for (let c = 0; c < calls; c++) await queue.enqueueMany(Array.from({ length: 1000 }, (_, i) => ({ name: 'noop', payload: { i } })));
    const ms = performance.now() - t0;
    await queue.close();
    return (calls * 1000) / (ms / 1000);
  };
}
