/**
 * The dashboard's layout input: which statecharts it draws for a queue's
 * definitions. Jobs on the base machine (whatever their retry policy) share
 * its chart, which also stands for names this process does not define; a
 * machine of the user's own gets a chart with its own states and edges, shared
 * by every job on it, under an id of its own.
 */
import { describe, expect, it } from 'vitest';
import { createQuarantineMachine } from '../../machines/examples/quarantine.machine.js';
import { createJobMachine } from '../../machines/job.machine.js';
import { groupGraphs } from '../../src/live/graphs.js';
import type { AnyJobDefinition } from '../../src/engine/core/job-definition.js';
import { defineJob, machineGraph } from '../../src/index.js';

const handler = () => 'ok';
const definitions = (...jobs: AnyJobDefinition[]) => new Map(jobs.map((job) => [job.name, job]));

describe('groupGraphs', () => {
  it('draws one chart for a queue of base-machine jobs, standing for every name', () => {
    const charts = groupGraphs(
      definitions(
        defineJob({ name: 'email', handler }),
        defineJob({ name: 'report', handler, retry: { attempts: 1 } }),
        defineJob({ name: 'sync', handler, retry: { attempts: 9, backoff: { type: 'fixed', delay: 5 } } }),
      ),
    );
    expect(charts).toEqual([{ id: 'job', names: null, graph: machineGraph(createJobMachine()) }]);
  });

  it('also draws it for a queue that defines no job (a dashboard next to producers only)', () => {
    expect(groupGraphs(new Map())).toEqual([{ id: 'job', names: null, graph: machineGraph(createJobMachine()) }]);
  });

  it('gives a machine of the user’s own a chart of its states and edges, shared by its jobs', () => {
    const charts = groupGraphs(
      definitions(
        defineJob({ name: 'import', handler, machine: createQuarantineMachine }),
        defineJob({ name: 'email', handler }),
        defineJob({ name: 'ingest', handler, machine: createQuarantineMachine }),
      ),
    );
    expect(charts.map((c) => [c.id, c.names])).toEqual([
      ['job', null],
      ['import', ['import', 'ingest']],
    ]);
    const own = charts[1]!.graph;
    expect(own).toEqual(machineGraph(createQuarantineMachine()));
    expect(own.states.map((s) => s.id)).toContain('quarantined');
    // Every edge joins two drawn states, and the extra state has edges in and out.
    const states = new Set(own.states.map((s) => s.id));
    for (const edge of own.edges) expect(states.has(edge.from) && states.has(edge.to)).toBe(true);
    expect(own.edges.some((e) => e.to === 'quarantined')).toBe(true);
    expect(own.edges.some((e) => e.from === 'quarantined')).toBe(true);
  });

  it('keeps chart ids apart when two machines would take the same one', () => {
    const charts = groupGraphs(
      definitions(
        defineJob({ name: 'job', handler, machine: createQuarantineMachine }),
        defineJob({ name: 'other', handler, machine: () => createJobMachine(undefined, { states: { parked: { type: 'final' } } } as never) }),
      ),
    );
    // The quarantine job is named `job`, the base chart's id: it takes `job-2`.
    expect(charts.map((c) => [c.id, c.names])).toEqual([
      ['job', null],
      ['job-2', ['job']],
      ['other', ['other']],
    ]);
    expect(charts[2]!.graph.states.map((s) => s.id)).toContain('parked');
  });
});
