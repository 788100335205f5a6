/** The queue's `telemetry` option (QueueOptions), checked and with its defaults. */
import { ValidationError } from '../errors.js';
import { rejectUnknownOptions } from '../lib/validate.js';

export interface TelemetryOptions {
  /** Default true. */
  traces?: boolean;
  /** Default true (when a meter provider is registered as the queue is created). */
  metrics?: boolean;
}

export function resolveTelemetry(t: boolean | TelemetryOptions | undefined): Required<TelemetryOptions> {
  if (t === undefined || typeof t === 'boolean') return { traces: t !== false, metrics: t !== false };
  if (typeof t !== 'object' || t === null) throw new ValidationError('createQueue telemetry must be a boolean or { traces?, metrics? }');
  rejectUnknownOptions('createQueue telemetry', t, ['traces', 'metrics']);
  for (const key of ['traces', 'metrics'] as const) {
    if (t[key] !== undefined && typeof t[key] !== 'boolean') throw new ValidationError(`createQueue telemetry.${key} must be a boolean`);
  }
  return { traces: t.traces !== false, metrics: t.metrics !== false };
}
