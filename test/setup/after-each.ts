/**
 * Run before every test file (vitest's setupFiles): the helpers' clean-ups
 * after each test (helpers/after-each.ts), and, after the file, a check that
 * it closed every SQLite store it opened. Files share a worker process, so a
 * store left open would go on checkpointing (and its queue claiming) under
 * the files that follow.
 */
import { afterAll, afterEach, beforeAll } from 'vitest';
import { checkpointedFiles } from '../../src/store/sqlite/checkpointer.js';
import { runAfterEachTest } from '../helpers/after-each.js';

afterEach(runAfterEachTest);

/** Stores open when the file began: one an earlier file's closing has not finished. */
let atStart = 0;
beforeAll(() => {
  atStart = checkpointedFiles();
});

afterAll(async () => {
  // A close under way (a queue closed as its test ended) gets a moment to finish.
  for (const end = Date.now() + 2000; checkpointedFiles() > atStart && Date.now() < end; ) await new Promise((r) => setTimeout(r, 20));
  const open = checkpointedFiles() - atStart;
  if (open > 0) throw new Error(`${open} SQLite store(s) this file opened are still open: close every queue and store a test opens`);
});
