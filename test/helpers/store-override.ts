/**
 * A store with some of its methods replaced, for tests that slow, gate or
 * count one call: each override gets the original method (bound to the
 * store) and returns the replacement; every other member is the store's own.
 */
import type { Store } from '../../src/index.js';

type Method = (...args: never[]) => unknown;
export type StoreOverrides = { [K in keyof Store]?: Store[K] extends Method ? (original: Store[K]) => Store[K] : never };

export function overrideStore(base: Store, overrides: StoreOverrides): Store {
  const made = new Map<PropertyKey, unknown>();
  return new Proxy(base, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== 'function') return v;
      const bound = (v as (...a: unknown[]) => unknown).bind(target);
      const make = (overrides as Record<PropertyKey, ((original: unknown) => unknown) | undefined>)[prop];
      if (!make) return bound;
      if (!made.has(prop)) made.set(prop, make(bound));
      return made.get(prop);
    },
  });
}
