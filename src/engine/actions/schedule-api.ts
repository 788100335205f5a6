/**
 * The queue's schedule methods (`schedule`, `unschedule`, `schedules`) and
 * what `start`/`stop` do for schedules: store the definitions' own, then run
 * the firing loop.
 */
import { ValidationError } from '../../errors.js';
import { checkString, serializePayload } from '../../lib/validate.js';
import type { Engine } from '../core/engine.js';
import { createScheduleRunner } from '../enqueue/schedule-runner.js';
import { checkJobSchedule, checkSchedule, toScheduleView, type ScheduleOptions, type ScheduleRepeat, type ScheduleView } from '../core/schedules.js';
import { slotKey } from '../core/cron.js';
import type { NewSchedule } from '../../store/store.js';
import { validatePayload, type PayloadSchema } from '../core/payload-schema.js';

export interface ScheduleApi {
  schedule(name: string, repeat: ScheduleRepeat, options?: ScheduleOptions): Promise<void>;
  unschedule(id: string): Promise<boolean>;
  schedules(): Promise<ScheduleView[]>;
  /** Stores the definitions' schedules, then fires schedules until `stop`. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * `schemas`: the jobs' payload schemas, by name; a schedule's payload is
 * validated once, when it is saved. `jobNames`: the jobs this queue defines
 * or declares, the schedules it fires (the defined ones when absent).
 */
export function createScheduleApi(
  engine: Engine,
  maxPayloadBytes: number,
  schemas: ReadonlyMap<string, PayloadSchema> = new Map(),
  jobNames: ReadonlySet<string> = new Set(engine.definitions.keys()),
): ScheduleApi {
  const { store, clock } = engine;
  const runner = createScheduleRunner(engine, jobNames);

  /**
   * The row with its payload replaced by the schema's output. The slots'
   * jobs take the stored payload as it is: validating it again as input
   * would refuse what a transforming schema gave.
   */
  const validated = async (row: NewSchedule, payload: unknown): Promise<NewSchedule> => {
    const schema = schemas.get(row.name);
    if (schema === undefined) return row;
    return { ...row, payload: serializePayload(await validatePayload(schema, payload, { job: row.name }), maxPayloadBytes) };
  };

  /** Checks the row as the job it will enqueue, too (name, payload size), before it is stored. */
  const save = async (row: NewSchedule) => {
    const now = clock.now();
    engine.newJob({ name: row.name, payload: JSON.parse(row.payload), options: { key: slotKey(row.id, now), runAt: now } }, now);
    await store.saveSchedule(row, now);
  };

  return {
    async schedule(name, repeat, options) {
      const row = checkSchedule('schedule', name, repeat, options, clock.now(), maxPayloadBytes);
      // A job's own schedule lives under its name: another job's schedule under that id would replace it (and its definition, at each start, this one).
      if (row.id !== row.name && jobNames.has(row.id)) {
        throw new ValidationError(`schedule id "${row.id}" is the name of job "${row.id}", where that job's own schedule lives: give this one another id`);
      }
      await save(await validated(row, options?.payload));
      runner.poke();
    },
    async unschedule(id) {
      checkString('unschedule id', id, 200);
      const removed = await store.deleteSchedule(id);
      runner.poke();
      return removed;
    },
    async schedules() {
      const now = clock.now();
      return (await store.schedules()).map((record) => toScheduleView(record, now));
    },
    async start() {
      for (const def of engine.definitions.values()) {
        // Its shape only: a definition whose end date passed is stored as it is, and fires no more.
        if (def.schedule !== undefined) await save(await validated(checkJobSchedule(def.name, def.schedule, null), def.schedule.payload));
      }
      runner.start();
    },
    stop: () => runner.stop(),
  };
}
