/**
 * The job's columns are listed once (src/store/job-columns.ts); the code that
 * moves a row's values is written out beside the list for speed. Each piece
 * is checked against the list here: a column changed in a row changes the
 * record's field the list names and nothing else, and a new job's field
 * lands in its column's place. The includes that put the sets into the
 * statements render as the list says, and migrations may not use them.
 */
import { describe, expect, it } from 'vitest';
import { enqueuedArrays, enqueuedValues, fillColumns, spelledOut } from '../../src/store/job-column-sql.js';
import {
  copyEnqueued,
  ENQUEUED_COLUMNS,
  ENQUEUED_FIELDS,
  JOB_COLUMNS,
  type JobColumn,
  type JobColumnName,
  type JobRow,
  READY_COLUMNS,
  type ReadyRow,
  toJobRecord,
  toLeasedRecord,
  writeEnqueued,
} from '../../src/store/job-columns.js';
import { migrations as pgMigrations } from '../../src/store/postgres/sql.js';
import { migrations as sqliteMigrations } from '../../src/store/sqlite/sql.js';
import type { NewJob } from '../../src/store/store.js';

const COLUMNS = Object.keys(JOB_COLUMNS) as JobColumnName[];
const spec = (c: JobColumnName): JobColumn => JOB_COLUMNS[c];

/** Columns read together into one field of a record read whole. */
const TOGETHER: Partial<Record<JobColumnName, string>> = {
  unique_kind: 'heldKey',
  unique_key: 'heldKey',
  children_left: 'flow',
  children_failed: 'flow',
  on_child_failure: 'flow',
};

/** A row whose every value is a JSON object's text or a number, and another value for one column. */
const base = (): JobRow => Object.fromEntries(COLUMNS.map((c) => [c, spec(c).type === 'text' ? '{"v":"a"}' : 1])) as JobRow;
const other = (c: JobColumnName): unknown => (c === 'on_child_failure' ? 'continue' : spec(c).type === 'text' ? '{"v":"b"}' : 2);

const changedFields = (a: object, b: object) =>
  Object.keys({ ...a, ...b }).filter((k) => JSON.stringify((a as Record<string, unknown>)[k]) !== JSON.stringify((b as Record<string, unknown>)[k]));

const CLAIM = { state: 'processing', attempts: 1, owner: 'o', token: 't', lockedUntil: 9, now: 5 };

describe('the job columns', () => {
  it('a record read whole carries each column in the field the list names', () => {
    for (const c of COLUMNS) {
      const row = { ...base(), [c]: other(c) } as JobRow;
      const field = spec(c).field !== undefined && !spec(c).claimOnly ? spec(c).field : TOGETHER[c];
      expect({ column: c, changed: changedFields(toJobRecord(base()), toJobRecord(row)) }).toEqual({ column: c, changed: field ? [field] : [] });
    }
    const fields = COLUMNS.filter((c) => !spec(c).claimOnly).map((c) => spec(c).field ?? TOGETHER[c]);
    expect(Object.keys(toJobRecord(base())).sort()).toEqual([...new Set(fields.filter((f) => f !== undefined))].sort());
  });

  it("a claim's record carries each ready column in its field, and what the claim writes", () => {
    const ready = (): ReadyRow => Object.fromEntries(READY_COLUMNS.map((c) => [c, base()[c]])) as ReadyRow;
    for (const c of READY_COLUMNS) {
      expect(spec(c).field).toBeDefined();
      const row = { ...ready(), [c]: other(c) } as ReadyRow;
      expect({ column: c, changed: changedFields(toLeasedRecord(ready(), CLAIM), toLeasedRecord(row, CLAIM)) }).toEqual({ column: c, changed: [spec(c).field] });
    }
    const written = ['state', 'result', 'progress', 'leaseOwner', 'leaseToken', 'lockedUntil', 'updatedAt'];
    expect(Object.keys(toLeasedRecord(ready(), CLAIM)).sort()).toEqual([...new Set([...READY_COLUMNS.map((c) => spec(c).field!), ...written])].sort());
  });

  it("a new job's values land in the enqueued columns' places, named as its fields", () => {
    const job: NewJob = { name: 'n', state: 's', payload: 'p', key: null, priority: 0, runAt: 0, retry: null, timeout: null };
    expect(Object.keys(copyEnqueued(job, {}))).toEqual([...ENQUEUED_FIELDS]);
    const values: unknown[] = [];
    expect(writeEnqueued(job, values, 2)).toBe(2 + ENQUEUED_COLUMNS.length);
    ENQUEUED_COLUMNS.forEach((c, i) => {
      const field = spec(c).enqueued as keyof NewJob;
      const marked = { ...job, [field]: `mark ${c}` } as NewJob;
      expect(copyEnqueued(marked, {})[field as (typeof ENQUEUED_FIELDS)[number]]).toBe(`mark ${c}`);
      writeEnqueued(marked, values, 2);
      expect({ column: c, value: values[2 + i] }).toEqual({ column: c, value: `mark ${c}` });
      expect(enqueuedValues(marked)[i]).toBe(`mark ${c}`);
      expect(enqueuedArrays([job, marked]).map((a) => a[1])[i]).toBe(`mark ${c}`);
    });
    // Absent optional fields bind NULL.
    expect(enqueuedValues(job)).not.toContain(undefined);
    expect(Object.values(copyEnqueued(job, {}))).not.toContain(undefined);
  });

  it('the includes render the sets in the list order, and refuse a form they do not know', () => {
    const ready = READY_COLUMNS.join(', ');
    expect(fillColumns('SELECT {{ready.columns}} FROM jobs', 'x.sql')).toBe(`SELECT ${ready} FROM jobs`);
    expect(fillColumns('SELECT {{ready.columns j}}', 'x.sql')).toBe(`SELECT ${READY_COLUMNS.map((c) => `j.${c}`).join(', ')}`);
    expect(fillColumns('({{enqueued.columns}}) VALUES ({{enqueued.params}})', 'x.sql')).toBe(
      `(${ENQUEUED_COLUMNS.join(', ')}) VALUES (${ENQUEUED_FIELDS.map((f) => `@${f}`).join(', ')})`,
    );
    const arrays = fillColumns('unnest($2::text[], {{enqueued.arrays $3}})', 'x.sql');
    expect(arrays).toBe(`unnest($2::text[], ${ENQUEUED_COLUMNS.map((c, i) => `$${3 + i}::${spec(c).type}[]`).join(', ')})`);
    expect(fillColumns('{{enqueued.params $6}}', 'x.sql')).toBe(ENQUEUED_COLUMNS.map((c, i) => `$${6 + i}::${spec(c).type}`).join(', '));
    for (const bad of ['{{enqueued.arrays}}', '{{enqueued.params 6}}', '{{ready.params}}', '{{ready.arrays $1}}', '{{ready.columns j.x}}']) {
      expect(() => fillColumns(bad, 'x.sql')).toThrow(/x\.sql/);
    }
  });

  it('no migration of either store uses an include: each spells its columns out, as shipped', () => {
    expect(() => spelledOut('ALTER TABLE jobs ADD COLUMN x text; SELECT {{ready.columns}} FROM jobs', '099_x.sql')).toThrow(/099_x\.sql.*spells its columns out/);
    expect(sqliteMigrations().length).toBeGreaterThan(0);
    expect(pgMigrations('lj').length).toBeGreaterThan(0);
  });
});
