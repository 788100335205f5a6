/**
 * Run before every test file (vitest's setupFiles): the helpers' clean-ups
 * after each test (helpers/after-each.ts), and, after the file, a check that
 * it closed every SQLite store it opened. Files share a worker process, so a
 * store left open would go on checkpointing (and its queue claiming) under
 * the files that follow.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { checkpointedFiles } from '../../src/store/sqlite/checkpointer.js';
import { runAfterEachTest } from '../helpers/after-each.js';

afterEach(runAfterEachTest);

/** Stores open when the file began: one an earlier file's closing has not finished. */
let atStart = 0;
beforeAll(() => {
  atStart = checkpointedFiles();
});

/**
 * With LITEJOBS_TEST_CPU_LOG=<file>, each file appends one JSON line: its
 * wall time, the worker's CPU time and that of the child processes it
 * reaped (the CLI, fixtures, tsc), in ms. The suite's time is CPU on two
 * cores; this says where it goes.
 */
const cpuLog = process.env.LITEJOBS_TEST_CPU_LOG;
/** This process's reaped children's CPU time, ms (/proc/self/stat: cutime + cstime, in 1/100 s). */
const childrenCpuMs = () => {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[13]) + Number(fields[14])) * 10;
};
if (cpuLog) {
  let start: { at: number; cpu: NodeJS.CpuUsage; children: number } | undefined;
  beforeAll(() => {
    start = { at: performance.now(), cpu: process.cpuUsage(), children: childrenCpuMs() };
  });
  afterAll(() => {
    const cpu = process.cpuUsage(start!.cpu);
    const line = {
      file: expect.getState().testPath,
      store: process.env.LITEJOBS_TEST_STORE ?? 'sqlite',
      wallMs: Math.round(performance.now() - start!.at),
      cpuMs: Math.round((cpu.user + cpu.system) / 1000),
      childrenMs: childrenCpuMs() - start!.children,
    };
    appendFileSync(cpuLog, `${JSON.stringify(line)}\n`);
  });
}

afterAll(async () => {
  // A close under way (a queue closed as its test ended) gets a moment to finish.
  for (const end = Date.now() + 2000; checkpointedFiles() > atStart && Date.now() < end; ) await new Promise((r) => setTimeout(r, 20));
  const open = checkpointedFiles() - atStart;
  if (open > 0) throw new Error(`${open} SQLite store(s) this file opened are still open: close every queue and store a test opens`);
});
