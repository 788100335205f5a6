/**
 * The machine registry compiles a machine per job definition, and keeps what
 * callers can make up bounded: every name no definition has shares the base
 * machine (names are any text a caller enqueues under; a compiled machine
 * takes tens of KB), and machines for per-job retry policies are kept up to
 * a bound, the least recently used going first.
 */
import { describe, expect, it } from 'vitest';
import { createMachineRegistry } from '../../src/engine/core/machine-registry.js';
import { defineJob } from '../../src/index.js';

describe('the machine registry', () => {
  it('gives every name without a definition the one base machine', () => {
    const registry = createMachineRegistry(new Map([['own', defineJob({ name: 'own', retry: { attempts: 7 }, handler: () => 1 })]]));
    const first = registry.forJob('made-0', null);
    for (let i = 1; i < 2000; i++) expect(registry.forJob(`made-${i}`, null)).toBe(first);
    expect(registry.forJob('own', null)).not.toBe(first);
  });

  it('keeps machines for per-job retry policies up to a bound, the least recently used going first', () => {
    const registry = createMachineRegistry(new Map());
    const kept = registry.forJob('any', { attempts: 1 });
    for (let i = 2; i < 600; i++) {
      registry.forJob(`n${i}`, { attempts: i });
      // Used all along: never the oldest.
      expect(registry.forJob('other', { attempts: 1 })).toBe(kept);
    }
    const early = registry.forJob('x', { attempts: 2 });
    expect(registry.forJob('x', { attempts: 2 })).toBe(early);
    // Compiled again once dropped: the same machine, a new object.
    for (let i = 600; i < 1000; i++) registry.forJob('x', { attempts: i });
    expect(registry.forJob('x', { attempts: 2 })).not.toBe(early);
    expect(registry.forJob('x', { attempts: 2 }).states).toEqual(early.states);
  });
});
