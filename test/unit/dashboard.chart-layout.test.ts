/**
 * How the dashboard lays its charts out, tighter than `litejobs diagram`:
 * edges of one event into one state are bundled (one arrowhead, one label),
 * arrowheads into a box never land on each other, long labels break over
 * two lines, a custom machine's extra states come before the finished ones,
 * and both the base and the quarantine machine fit a 1280-px page at full
 * size. Without these options the layout is the CLI's, unchanged.
 */
import { describe, expect, it } from 'vitest';
import { createQuarantineMachine } from '../../machines/examples/quarantine.machine.js';
import { createJobMachine } from '../../machines/job.machine.js';
import { dashboardGraphs, dashboardLayoutOptions, edgeBundles } from '../../src/live/graphs.js';
import { labelLines } from '../../src/diagram/label-lines.js';
import { layoutGraph, type Box, type DiagramLayout, type Point } from '../../src/diagram/svg-layout.js';
import { defineJob, machineGraph, type MachineGraph } from '../../src/index.js';

const base = machineGraph(createJobMachine());
const quarantine = machineGraph(createQuarantineMachine());

/** Arrowheads are 9 wide (route-paths.ts): tips closer than that overlap. */
const ARROW_WIDTH = 9;
/** The lifecycle panel's width at a 1280-px window, less a margin for a scrollbar: the widest chart drawn at scale 1 or more. */
const PANEL_AT_1280 = 1180;

/** Each bundle as [label, target, sources]. */
function described(graph: MachineGraph): Array<[string, string, string[]]> {
  return edgeBundles(graph).map((members) => {
    const edges = members.map((i) => graph.edges[i]!);
    return [edges[0]!.label, edges[0]!.to, edges.map((e) => e.from)];
  });
}

/** Where the drawn arrowheads point, with the state each ends on: one per edge outside a bundle, one per bundle, one for the initial arrow. */
function arrowTips(layout: DiagramLayout, initial: string): Array<{ tip: Point; to: string }> {
  const tips = layout.edges.filter((placed) => placed.bundle === undefined).map((placed) => ({ tip: placed.points.at(-1)!, to: placed.edge.to }));
  for (const [b, bundle] of (layout.bundles ?? []).entries()) {
    const members = layout.edges.filter((placed) => placed.bundle === b);
    expect(members.map((m) => m.edge.id)).toEqual(bundle.edges);
    tips.push({ tip: members[0]!.points.at(-1)!, to: members[0]!.edge.to });
  }
  tips.push({ tip: layout.initial.points.at(-1)!, to: initial });
  return tips;
}

function onBorder(p: Point, box: Box): boolean {
  const within = (v: number, lo: number, hi: number) => v >= lo - 0.5 && v <= hi + 0.5;
  const near = (a: number, b: number) => Math.abs(a - b) <= 0.5;
  const { x, y, width, height } = box;
  return (within(p.y, y, y + height) && (near(p.x, x) || near(p.x, x + width))) || (within(p.x, x, x + width) && (near(p.y, y) || near(p.y, y + height)));
}

const overlap = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

describe('edgeBundles', () => {
  it('bundles the base machine’s job.cancel, job.promote and job.rerun edges, each into the one state they share', () => {
    expect(described(base)).toEqual([
      ['job.cancel', 'cancelled', ['pending', 'processing', 'sleeping', 'waiting-message', 'waiting-children', 'failed']],
      ['job.promote', 'pending', ['sleeping', 'failed']],
      ['job.rerun', 'pending', ['completed', 'cancelled']],
    ]);
  });

  it('takes a custom machine’s edges in, and never a self-loop or edges whose guards differ', () => {
    const bundles = described(quarantine);
    expect(bundles[0]).toEqual(['job.cancel', 'cancelled', ['pending', 'processing', 'sleeping', 'waiting-message', 'waiting-children', 'failed', 'quarantined']]);
    const bundled = new Set(edgeBundles(quarantine).flat());
    quarantine.edges.forEach((edge, i) => {
      if (edge.from === edge.to) expect(bundled.has(i), edge.id).toBe(false);
    });
    // job.fail into failed under two guards, job.expire under a third: three labels, three arrows.
    expect(bundles.some(([label]) => label.startsWith('job.fail') || label.startsWith('job.expire'))).toBe(false);
  });
});

describe('labelLines', () => {
  it('breaks a long label before its guard or after `after`, and leaves short ones whole', () => {
    expect(labelLines({ label: 'job.fail [wantsRetryLater]', guard: 'wantsRetryLater' })).toEqual(['job.fail', '[wantsRetryLater]']);
    expect(labelLines({ label: 'job.children [else]', else: true })).toEqual(['job.children', '[else]']);
    expect(labelLines({ label: 'after quarantineExpiry' })).toEqual(['after', 'quarantineExpiry']);
    expect(labelLines({ label: 'job.fail [else]', else: true })).toEqual(['job.fail', '[else]']);
    expect(labelLines({ label: 'after 500 ms' })).toEqual(['after 500 ms']);
    expect(labelLines({ label: 'job.cancel' })).toEqual(['job.cancel']);
    // Nowhere to break: one line, however long.
    expect(labelLines({ label: 'job.a-very-long-event-name' })).toEqual(['job.a-very-long-event-name']);
  });
});

describe('the dashboard’s layouts', () => {
  it.each([
    ['base', 'RIGHT', base],
    ['base', 'DOWN', base],
    ['quarantine', 'RIGHT', quarantine],
    ['quarantine', 'DOWN', quarantine],
  ] as const)('%s (%s): each bundle meets its target at one point, and no two arrowheads on a box touch', async (_name, direction, graph) => {
    const layout = await layoutGraph(graph, direction, dashboardLayoutOptions(graph));
    expect(layout.bundles).toHaveLength(edgeBundles(graph).length);
    for (const [b, bundle] of layout.bundles!.entries()) {
      const ends = layout.edges.filter((placed) => placed.bundle === b).map((placed) => placed.points.at(-1)!);
      expect(new Set(ends.map((p) => `${p.x},${p.y}`)).size, bundle.edges.join(' ')).toBe(1);
      expect(bundle.junctions.length).toBeGreaterThan(0);
    }
    const boxes = new Map(layout.states.map((placed) => [placed.state.id, placed as Box]));
    const tips = arrowTips(layout, graph.initial);
    tips.forEach(({ tip, to }, i) => {
      expect(onBorder(tip, boxes.get(to)!), `tip ${i} (${tip.x}, ${tip.y}) on ${to}`).toBe(true);
      for (const other of tips.slice(i + 1)) {
        expect(Math.hypot(tip.x - other.tip.x, tip.y - other.tip.y), `tips into ${to} and ${other.to}`).toBeGreaterThanOrEqual(ARROW_WIDTH);
      }
    });
  });

  it.each([
    ['base', base],
    ['quarantine', quarantine],
  ] as const)('%s: fits a 1280-px page at full size, its boxes and labels apart, every label on the lines it was sized for', async (_name, graph) => {
    const layout = await layoutGraph(graph, 'RIGHT', dashboardLayoutOptions(graph));
    expect(layout.width).toBeLessThanOrEqual(PANEL_AT_1280);
    const labels = layout.edges.filter((placed, i) => placed.bundle === undefined || layout.edges.findIndex((p) => p.bundle === placed.bundle) === i).map((p) => p.label);
    expect(labels).toHaveLength(layout.edges.length - edgeBundles(graph).flat().length + edgeBundles(graph).length);
    const boxes: Box[] = [...layout.states, ...labels];
    boxes.forEach((a, i) => {
      for (const [j, b] of boxes.slice(i + 1).entries()) expect(overlap(a, b), `boxes ${i} and ${i + 1 + j} overlap`).toBe(false);
    });
    for (const placed of layout.edges) expect(placed.lines, placed.edge.id).toEqual(labelLines(placed.edge));
    // Two lines where the label breaks: its box is taller than a one-line label's.
    const wrapped = layout.edges.find((placed) => placed.edge.label === 'job.fail [canRetry]')!;
    const single = layout.edges.find((placed) => placed.edge.label === 'job.claim')!;
    expect(wrapped.label.height).toBeGreaterThan(single.label.height);
  });

  it('lays the quarantine machine’s extra state out before the finished states, not past them', async () => {
    const layout = await layoutGraph(quarantine, 'RIGHT', dashboardLayoutOptions(quarantine));
    const x = (id: string) => layout.states.find((s) => s.state.id === id)!.x;
    expect(x('quarantined')).toBeLessThan(x('dead'));
    expect(x('quarantined')).toBeLessThan(x('cancelled'));
  });

  it('is what dashboardGraphs sends, both ways; laid out once per process', async () => {
    const definitions = new Map([['import', defineJob({ name: 'import', handler: () => 'ok', machine: createQuarantineMachine })]]);
    const [, own] = await dashboardGraphs(definitions);
    expect(own!.layouts.RIGHT).toEqual(await layoutGraph(quarantine, 'RIGHT', dashboardLayoutOptions(quarantine)));
    expect(own!.layouts.DOWN).toEqual(await layoutGraph(quarantine, 'DOWN', dashboardLayoutOptions(quarantine)));
    // A second server of the process: the same layouts, not made again.
    const [, again] = await dashboardGraphs(definitions);
    expect(again!.layouts.RIGHT).toBe(own!.layouts.RIGHT);
    // Whatever the budget: 1 ms would be too short to make it again.
    const [, underAnyBudget] = await dashboardGraphs(definitions, undefined, 1);
    expect(underAnyBudget!.layouts.DOWN).toBe(own!.layouts.DOWN);
  });
});

describe('layoutGraph without the dashboard’s options', () => {
  it('draws what `litejobs diagram` draws: no bundles, labels on one line', async () => {
    const layout = await layoutGraph(base, 'RIGHT');
    expect(layout.bundles).toBeUndefined();
    for (const placed of layout.edges) expect([placed.bundle, placed.lines]).toEqual([undefined, undefined]);
  });

  it('refuses a bundle elk could not draw as one (LJ_ERR_VALIDATION)', async () => {
    const at = (id: string) => base.edges.findIndex((e) => e.id === id);
    const mixed = [at('pending:job.cancel:cancelled'), at('processing:job.complete:completed')];
    const loop = [at('pending:job.promote:pending'), at('failed:job.promote:pending')];
    const twice = [
      [at('pending:job.cancel:cancelled'), at('failed:job.cancel:cancelled')],
      [at('failed:job.cancel:cancelled'), at('sleeping:job.cancel:cancelled')],
    ];
    for (const bundles of [[mixed], [loop], twice, [[base.edges.length]]]) {
      await expect(layoutGraph(base, 'RIGHT', { bundles })).rejects.toMatchObject({ code: 'LJ_ERR_VALIDATION' });
    }
  });
});

describe('dashboardGraphs off the event loop', () => {
  /** A ring of states (state i → state i + 1): a shape elk takes seconds over, or runs out of stack on. */
  function ringJob(n: number) {
    const states: Record<string, unknown> = {};
    const on: Record<string, unknown> = {};
    for (let i = 0; i < n; i++) {
      states[`state ${i}`] = { on: { 'job.cancel': { target: 'cancelled' }, 'job.approve': { target: 'pending' }, [`next${i}`]: { target: `state ${(i + 1) % n}` } } };
      on[`go ${i}`] = { target: `state ${i}` };
    }
    return defineJob({ name: 'ring', handler: () => 1, machine: (p: unknown) => createJobMachine(p as never, { on: { pending: on }, states } as never) });
  }

  it('gives a machine elk cannot lay out in its budget no layout, the others theirs, and never blocks the event loop meanwhile', async () => {
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 20);
    const warnings: unknown[] = [];
    const logger = { warn: (obj: unknown) => warnings.push(obj) } as never;
    try {
      // The base chart laid out first, on a generous budget: a layout is kept
      // whatever budget made it, so the short one below only has to fit the ring.
      await dashboardGraphs(new Map(), logger, 60_000);
      // A budget of 1 s: elk spends all of it on the ring, on a thread, and is stopped.
      const [own, ring] = await dashboardGraphs(new Map([['ring', ringJob(60)]]), logger, 1000);
      expect(own!.layouts.RIGHT?.states.length).toBe(base.states.length);
      expect(ring!.layouts).toEqual({ RIGHT: null, DOWN: null });
      expect(ring!.graph.states.length).toBe(base.states.length + 60);
      expect(warnings).toEqual([expect.objectContaining({ chart: ring!.id })]);
      // 1 s of budget at a 20 ms tick: the loop ran all along (a blocked loop would tick about once).
      expect(ticks).toBeGreaterThan(10);
    } finally {
      clearInterval(ticker);
    }
  });
});

describe('room for each edge rate', () => {
  const overlap = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
  it.each([
    ['base', base],
    ['quarantine', quarantine],
  ] as const)('%s: every label box holds its text and a rate line under it, clear of other labels and of every state', async (_name, graph) => {
    const layout = await layoutGraph(graph, 'RIGHT', dashboardLayoutOptions(graph));
    const labels = [...new Map(layout.edges.map((placed) => [`${placed.label.x},${placed.label.y}`, placed])).values()];
    for (const placed of labels) {
      const lines = placed.lines?.length ?? 1;
      // 18 for the first line, 14 for each more, and 14 for the rate under them.
      expect(placed.label.height, placed.edge.id).toBeGreaterThanOrEqual(18 + 14 * (lines - 1) + 14);
      for (const state of layout.states) expect(overlap(placed.label, state), `${placed.edge.id} on ${state.state.id}`).toBe(false);
      for (const other of labels) if (other !== placed) expect(overlap(placed.label, other.label), `${placed.edge.id} on ${other.edge.id}`).toBe(false);
    }
  });
});
