/**
 * The chaos check, short: the real tool (`npm run chaos`) in a child process,
 * with ten worker kills close together. It must pass, and its line of
 * figures must show what passing means: nothing lost, nothing completed
 * twice, no overlapping runs, the file intact, and the kills really done.
 */
import { describe, expect, it } from 'vitest';
import { useChaosTool } from '../helpers/chaos-run.js';

const KILLS = 10;

const runChaos = useChaosTool();

describe('npm run chaos, short', () => {
  it(
    `passes ${KILLS} worker kills with every acknowledged job finished exactly once, and failing jobs held to their attempts and backoff`,
    async () => {
      const started = Date.now();
      // Short pauses between kills and a short drain limit keep the whole run near 15–25 s.
      const { figures: f, line, report } = await runChaos(['--kills', String(KILLS), '--interval', '300-900', '--drain-timeout', '20']);
      expect(f, report).toMatchObject({ lost: '0', stuck: '0', doubled: '0', overAttempts: '0', earlyRetries: '0', overlaps: '0', unrun: '0', crashes: '0', lostChanges: '0', doubledChanges: '0', outOfOrderChanges: '0', integrity: 'ok', verdict: 'PASS' });
      expect(Number(f.kills), report).toBeGreaterThanOrEqual(KILLS);
      expect(Number(f.acknowledged), report).toBeGreaterThan(0);
      // One job in ten always fails and ends dead after its attempts.
      expect(Number(f.dead), report).toBeGreaterThan(0);
      // Every acknowledged job ended as its policy says, or as the operator left it (cancelled, removed).
      expect(Number(f.completed) + Number(f.dead) + Number(f.cancelled) + Number(f.removed), report).toBeGreaterThanOrEqual(Number(f.acknowledged));
      // The operator acted and the watcher read the feed.
      expect(Number(f.operations), report).toBeGreaterThan(0);
      expect(Number(f.changes), report).toBeGreaterThan(Number(f.acknowledged));
      console.info(`[chaos.short] ${line} (test ${((Date.now() - started) / 1000).toFixed(1)}s)`);
    },
    90_000,
  );
});
