/**
 * How many runs a property test makes: its own count in `npm test`, times
 * LITEJOBS_PROPERTY_SCALE when set (`npm run test:deep` sets 4). The suite's
 * counts keep it quick enough to run many times a day; the deep run is for a
 * change to the claim, the limits or the write paths.
 */
const scale = Number(process.env.LITEJOBS_PROPERTY_SCALE ?? 1);

export function propertyRuns(n: number): number {
  return Math.max(1, Math.round(n * (Number.isFinite(scale) && scale > 0 ? scale : 1)));
}
