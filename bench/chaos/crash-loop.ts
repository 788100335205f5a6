/**
 * The crash loop: after a random pause, SIGKILL a random worker (and now and
 * then the producer too) and start a replacement, until enough workers have
 * been killed; now and then the watcher too, which resumes from its last
 * cursor. Every draw comes from the seeded generator, four per kill
 * whatever the branch, so one seed gives one sequence of victims and pauses.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Fleet } from './fleet.js';
import { PRODUCER_KILL_CHANCE, WATCHER_KILL_CHANCE } from './options.js';

export interface CrashLoopSettings {
  kills: number;
  intervalMs: [number, number];
  random: () => number;
  /** Progress for a person watching (nothing with --quiet). */
  say: (line: string) => void;
  /** A one-line summary of the store's progress, for `say`. */
  progress: () => Promise<string>;
}

export async function crashLoop(fleet: Fleet, s: CrashLoopSettings): Promise<void> {
  const [min, max] = s.intervalMs;
  for (let kill = 1; kill <= s.kills; kill++) {
    const pause = min + s.random() * (max - min);
    const slot = Math.floor(s.random() * fleet.workers.length);
    const hitProducer = s.random() < PRODUCER_KILL_CHANCE;
    const hitWatcher = s.random() < WATCHER_KILL_CHANCE;
    await sleep(pause);
    fleet.refill(true);
    const victim = fleet.killWorker(slot);
    const up = ((victim.life.killedAt! - victim.life.spawnedAt) / 1000).toFixed(1);
    let line = `kill ${kill}/${s.kills}: ${victim.life.proc} (pid ${victim.life.pid}, up ${up}s)`;
    if (hitProducer) line += `, producer ${fleet.killProducer().life.proc}`;
    if (hitWatcher) line += `, watcher ${fleet.killWatcher().life.proc}`;
    s.say(`${line}; ${await s.progress()}`);
  }
}
