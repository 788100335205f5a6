/**
 * A record keyed by names users choose (job names, states). It has no
 * prototype, so every name is an own key like any other: on a plain `{}`,
 * `record['__proto__'] = …` would replace the prototype and the name would
 * vanish from every count, listing and metric built from it.
 */
export function nameRecord<V>(): Record<string, V> {
  return Object.create(null) as Record<string, V>;
}
