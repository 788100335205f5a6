/**
 * The processes of one chaos run: a fixed number of worker slots and one
 * producer slot, each refilled with a fresh process (under a new label, with
 * its own log file) whenever its occupant is killed or dies. Every process
 * ever started stays in `all`, for the verdict.
 */
import { ackedFile, feedLogFile, operatorLogFile, runLogFile } from './collect.js';
import { isAlive, killChild, spawnChaosChild, type ChaosChild } from './child.js';
import type { OperatorConfig, ProducerConfig, WatcherConfig, WorkerConfig } from './options.js';

export interface FleetSettings {
  db: string;
  dir: string;
  workers: number;
  rate: number;
  seed: number;
}

export class Fleet {
  readonly all: ChaosChild[] = [];
  readonly workers: ChaosChild[] = [];
  producer: ChaosChild;
  /** Acts on jobs from outside the workers (operator.ts). */
  readonly operator: ChaosChild;
  /** Reads the change feed, resuming after each kill (watcher.ts). */
  watcher: ChaosChild;
  private spawned = 0;

  constructor(private readonly s: FleetSettings) {
    this.producer = this.spawnProducer();
    for (let slot = 0; slot < s.workers; slot++) this.workers.push(this.spawnWorker());
    const operator: OperatorConfig = { db: s.db, log: operatorLogFile(s.dir), label: 'op', seed: (s.seed + 104_729) >>> 0 };
    this.operator = this.track(spawnChaosChild('operator', 'op', operator));
    this.watcher = this.spawnWatcher();
  }

  private spawnWatcher(): ChaosChild {
    const label = `v${++this.spawned}`;
    // Every watcher appends to one feed log and resumes from its last cursor.
    const config: WatcherConfig = { db: this.s.db, log: feedLogFile(this.s.dir), label };
    return this.track(spawnChaosChild('watcher', label, config));
  }

  /** SIGKILLs the watcher and starts its successor, which resumes from the last cursor logged. */
  killWatcher(): ChaosChild {
    const victim = this.watcher;
    killChild(victim);
    this.watcher = this.spawnWatcher();
    return victim;
  }

  private spawnWorker(): ChaosChild {
    const label = `w${++this.spawned}`;
    // Each process gets its own seed for its handlers' work times, derived from the run's seed.
    const config: WorkerConfig = { db: this.s.db, log: runLogFile(this.s.dir, label), label, seed: (this.s.seed + this.spawned * 7919) >>> 0 };
    return this.track(spawnChaosChild('worker', label, config));
  }

  private spawnProducer(): ChaosChild {
    const label = `p${++this.spawned}`;
    const config: ProducerConfig = { db: this.s.db, acked: ackedFile(this.s.dir, label), label, rate: this.s.rate };
    return this.track(spawnChaosChild('producer', label, config));
  }

  private track(c: ChaosChild): ChaosChild {
    this.all.push(c);
    return c;
  }

  /** SIGKILLs the worker in `slot` and starts its replacement at once. */
  killWorker(slot: number): ChaosChild {
    const victim = this.workers[slot]!;
    killChild(victim);
    this.workers[slot] = this.spawnWorker();
    return victim;
  }

  killProducer(): ChaosChild {
    const victim = this.producer;
    killChild(victim);
    this.producer = this.spawnProducer();
    return victim;
  }

  /** Refills the slots of processes that died on their own (the verdict counts them as crashes). */
  refill(withProducer: boolean): void {
    this.workers.forEach((w, slot) => {
      if (!isAlive(w)) this.workers[slot] = this.spawnWorker();
    });
    if (withProducer && !isAlive(this.producer)) this.producer = this.spawnProducer();
    if (!isAlive(this.watcher)) this.watcher = this.spawnWatcher();
  }

  alive(): ChaosChild[] {
    return this.all.filter(isAlive);
  }

  stderrOf(label: string): string {
    return this.all.find((c) => c.life.proc === label)?.stderr() ?? '';
  }
}
