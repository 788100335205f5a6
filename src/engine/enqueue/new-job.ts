/** Turns an enqueue's input into the row to insert, checking everything before anything is written. */
import { ValidationError } from '../../errors.js';
import type { NewJob } from '../../store/store.js';
import type { AnyJobDefinition } from '../core/job-definition.js';
import type { MachineRegistry } from '../core/machine-registry.js';
import type { EnqueueInput } from '../core/engine.js';
import { checkEnqueueOptions } from '../core/options.js';
import { checkString, serializePayload } from '../../lib/validate.js';


export function createNewJob(
  registry: MachineRegistry,
  definitions: ReadonlyMap<string, AnyJobDefinition>,
  maxPayloadBytes: number,
): (input: EnqueueInput, now: number) => NewJob {
  return ({ name, payload, options }, now) => {
    checkString('enqueue name', name, 200);
    const checked = checkEnqueueOptions(options, now);
    const def = definitions.get(name as string);
    if (checked.retry && def?.machine && typeof def.machine !== 'function') {
      throw new ValidationError(`job "${String(name)}" runs a fixed machine: put its retry policy in the machine`);
    }
    const retry = checked.retry ? (JSON.parse(checked.retry) as Record<string, unknown>) : null;
    const { state } = registry.forJob(name as string, retry).initial;
    return { name: name as string, state, payload: serializePayload(payload, maxPayloadBytes), ...checked };
  };
}
