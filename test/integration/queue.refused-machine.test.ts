/**
 * A job machine that createQueue refuses (engine/core/machine-registry.ts) fails
 * the call with LJ_ERR_MACHINE, and the database file the call opened is
 * closed with it: nothing keeps checkpointing a file no queue will use.
 */
import { createMachine } from 'xstate';
import { describe, expect, it } from 'vitest';
import { createQueue, defineJob } from '../../src/index.js';
import { checkpointedFiles } from '../../src/store/sqlite/checkpointer.js';
import { tempDbPath } from '../helpers/temp-db.js';

describe('a machine refused at start-up', () => {
  it('fails createQueue with LJ_ERR_MACHINE and closes the database the call opened', async () => {
    const db = tempDbPath();
    try {
      const before = checkpointedFiles();
      const bad = createMachine({ id: 'no-pending', initial: 'waiting', states: { waiting: {} } });
      expect(() => createQueue({ path: db.path, logger: false, jobs: [defineJob({ name: 'x', machine: bad as never, handler: () => 'ok' })] })).toThrow(
        expect.objectContaining({ code: 'LJ_ERR_MACHINE' }),
      );
      // The store's close ends its checkpointer thread: the count is back where it was.
      for (let i = 0; i < 200 && checkpointedFiles() > before; i++) await new Promise((r) => setTimeout(r, 10));
      expect(checkpointedFiles()).toBe(before);
    } finally {
      db.cleanup();
    }
  });
});
