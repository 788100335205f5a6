/**
 * A job's progress writes one at a time (engine/run/progress-writes.ts):
 * values given while one is being written wait, the newest replacing the
 * others, and every caller settles with the write that covers its value.
 */
import { describe, expect, it } from 'vitest';
import { createProgressWrites } from '../../src/engine/run/progress-writes.js';

function store() {
  const writes: Array<{ jobId: number; text: string; finish: (ok: boolean | Error) => void }> = [];
  const write = (jobId: number, _token: string, text: string) =>
    new Promise<boolean>((resolve, reject) => writes.push({ jobId, text, finish: (ok) => (ok instanceof Error ? reject(ok) : resolve(ok)) }));
  return { writes, write };
}

describe('progress writes', () => {
  it('writes the first value at once, then only the newest of those given meanwhile; each caller settles with the write covering it', async () => {
    const s = store();
    const p = createProgressWrites(s.write);
    const first = p.write(1, 't', '1');
    const later = ['2', '3', '4'].map((v) => p.write(1, 't', v));
    const other = p.write(2, 't', 'x'); // another job: its own line
    expect(s.writes.map((w) => `${w.jobId}:${w.text}`)).toEqual(['1:1', '2:x']);
    s.writes[0]!.finish(true);
    expect(await first).toBe(true);
    await Promise.resolve();
    expect(s.writes.map((w) => `${w.jobId}:${w.text}`)).toEqual(['1:1', '2:x', '1:4']);
    s.writes[2]!.finish(false); // the lease was lost meanwhile
    expect(await Promise.all(later)).toEqual([false, false, false]);
    s.writes[1]!.finish(true);
    expect(await other).toBe(true);
    // Idle again: the next value is written at once.
    const again = p.write(1, 't', '5');
    expect(s.writes.at(-1)!.text).toBe('5');
    s.writes.at(-1)!.finish(new Error('database is locked'));
    await expect(again).rejects.toThrow('database is locked');
  });
});
