/** What the charts draw of the hour's series: pure, so tests can call them. */

/** The newest value of each line that has one (null for a line with none). */
export function newestValues(data: ReadonlyArray<ArrayLike<number | null | undefined>>): Array<number | null> {
  return Array.from(data.slice(1), (ys) => {
    for (let i = ys.length - 1; i >= 0; i--) {
      const y = ys[i];
      if (y !== null && y !== undefined) return y;
    }
    return null;
  });
}

/** The index of the first bucket to draw: the one holding `since` (ms), so nothing before the data began is drawn as zeros. */
export function firstDrawn(xs: readonly number[], step: number, since: number): number {
  const from = since / 1000 - step / 1000;
  const i = xs.findIndex((x) => x >= from);
  // Keep two points at least: a line needs them.
  return Math.max(0, Math.min(i === -1 ? xs.length : i, xs.length - 2));
}
