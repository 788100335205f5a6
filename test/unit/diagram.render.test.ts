/**
 * The renderers draw exactly the graph they are given: Mermaid as the docs
 * commit it, DOT with every state and edge quoted, and an SVG that is
 * well-formed, self-contained, deterministic and legible (no two boxes or
 * labels on top of each other).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createQuarantineMachine } from '../../machines/examples/quarantine.machine.js';
import { createJobMachine } from '../../machines/job.machine.js';
import { extractDiagram } from '../../docs/tools/generate-docs.js';
import { machineGraph, renderDot, renderMermaid, renderSvg, type MachineGraph } from '../../src/index.js';
import { allElements, parseXml, textContent, type XmlElement } from '../helpers/xml.js';

const base = machineGraph(createJobMachine());
const quarantine = machineGraph(createQuarantineMachine());

/** A graph no machine would give, with every character that needs quoting or escaping. */
const awkward: MachineGraph = {
  initial: 'a "quoted" <state>',
  states: [
    { id: 'a "quoted" <state>', final: false, delayed: false },
    { id: 'back\\slash & amp', final: true, delayed: false },
    { id: "it's\nmultiline", final: false, delayed: true },
  ],
  edges: [
    { id: 'e1', from: 'a "quoted" <state>', to: 'back\\slash & amp', event: 'go<>', label: 'go<> [g&"x"]', guard: 'g&"x"' },
    { id: 'e2', from: "it's\nmultiline", to: 'a "quoted" <state>', event: 'xstate.after.1.m', label: 'after 1 ms' },
    { id: 'e3', from: 'a "quoted" <state>', to: "it's\nmultiline", event: 'go<>', label: 'go<> [else]', else: true },
    { id: 'e4', from: "it's\nmultiline", to: "it's\nmultiline", event: 'self', label: 'self' },
  ],
};

describe('renderMermaid', () => {
  it('equals the block committed in docs/concepts/lifecycle.md', () => {
    const page = readFileSync(fileURLToPath(new URL('../../docs/concepts/lifecycle.md', import.meta.url)), 'utf8');
    expect(renderMermaid(base)).toBe(extractDiagram(page));
  });

  it('draws a user machine’s extra state and its edges', () => {
    const text = renderMermaid(quarantine);
    expect(text).toContain('    processing --> quarantined : job.fail [isBadData]\n');
    expect(text).toContain('    quarantined --> dead : after quarantineExpiry\n');
    expect(text).toContain('    quarantined --> pending : job.approve\n');
  });
});

/** The statements of a DOT digraph written one per line: node or edge, with its attributes unquoted. */
function parseDot(text: string) {
  const lines = text.trimEnd().split('\n');
  expect(lines[0]).toBe('digraph "machine" {');
  expect(lines.at(-1)).toBe('}');
  const quoted = '"((?:[^"\\\\]|\\\\.)*)"';
  const unquote = (s: string) => s.replace(/\\(.)/g, (_m, c: string) => (c === 'n' ? '\n' : c));
  const statement = new RegExp(`^  ${quoted}(?: -> ${quoted})?(?: \\[(.*)\\])?;$`);
  const nodes = new Map<string, Record<string, string>>();
  const edges: Array<{ from: string; to: string; attrs: Record<string, string> }> = [];
  for (const line of lines.slice(1, -1)) {
    if (/^ {2}(rankdir|node|edge)\b/.test(line)) continue;
    const m = statement.exec(line);
    expect(m, `not a quoted DOT statement: ${line}`).not.toBeNull();
    const attrs: Record<string, string> = {};
    for (const a of (m![3] ?? '').matchAll(new RegExp(`(\\w+)=(?:${quoted}|([\\w.]+))`, 'g'))) attrs[a[1]!] = a[2] !== undefined ? unquote(a[2]) : a[3]!;
    if (m![2] === undefined) nodes.set(unquote(m![1]!), attrs);
    else edges.push({ from: unquote(m![1]!), to: unquote(m![2]), attrs });
  }
  return { nodes, edges };
}

describe('renderDot', () => {
  it.each([
    ['base', base],
    ['quarantine', quarantine],
    ['awkward names', awkward],
  ])('has every state and edge of the %s graph, quoted, and the initial point', (_name, graph) => {
    const { nodes, edges } = parseDot(renderDot(graph));
    for (const state of graph.states) {
      expect(nodes.get(state.id), `node ${state.id}`).toEqual(state.final ? { shape: 'doublecircle' } : {});
    }
    const [start, ...rest] = [...nodes].filter(([id]) => !graph.states.some((s) => s.id === id));
    expect(rest).toEqual([]);
    expect(start![1]).toMatchObject({ shape: 'point' });
    expect(edges[0]).toEqual({ from: start![0], to: graph.initial, attrs: {} });
    expect(edges.slice(1)).toEqual(graph.edges.map((e) => ({ from: e.from, to: e.to, attrs: { id: e.id, label: e.label } })));
  });

  it('flows top to bottom when asked', () => {
    expect(renderDot(base)).toContain('rankdir=LR;');
    expect(renderDot(base, { direction: 'DOWN' })).toContain('rankdir=TB;');
  });
});

interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}
const rectOf = (el: XmlElement): Rect => ({ x: +el.attrs.x!, y: +el.attrs.y!, width: +el.attrs.width!, height: +el.attrs.height! });
const overlap = (a: Rect, b: Rect) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

describe('renderSvg', () => {
  it.each([
    ['base', 'RIGHT', base],
    ['base', 'DOWN', base],
    ['quarantine', 'RIGHT', quarantine],
    ['awkward names', 'DOWN', awkward],
  ] as const)('draws the %s graph (%s) as well-formed XML with one data-state per state and one data-edge per edge', async (_name, direction, graph) => {
    const svg = parseXml(await renderSvg(graph, { direction }));
    expect(svg.name).toBe('svg');
    expect(svg.attrs.xmlns).toBe('http://www.w3.org/2000/svg');
    const elements = allElements(svg);
    const states = elements.filter((el) => 'data-state' in el.attrs);
    expect(states.map((el) => el.attrs['data-state'])).toEqual(graph.states.map((s) => s.id));
    // A line break in a name is shown as a space (SVG would drop it).
    const shown = (text: string) => text.replace(/\n/g, ' ');
    states.forEach((el, i) => {
      expect(textContent(el)).toBe(shown(graph.states[i]!.id));
      expect(el.children.filter((c) => c.name === 'rect')).toHaveLength(graph.states[i]!.final ? 2 : 1);
    });
    const edges = elements.filter((el) => 'data-edge' in el.attrs);
    expect(edges.map((el) => el.attrs['data-edge'])).toEqual(graph.edges.map((e) => e.id));
    edges.forEach((el, i) => {
      expect(textContent(el)).toBe(shown(graph.edges[i]!.label));
      expect(el.children.filter((c) => c.name === 'path').map((c) => c.attrs.class)).toEqual(['line', 'arrow']);
    });
    const initial = elements.filter((el) => el.attrs.class === 'initial');
    expect(initial).toHaveLength(1);
    expect(initial[0]!.children.map((c) => c.name)).toEqual(['circle', 'path', 'path']);
  });

  it('refuses a graph whose edge names a state it does not list (LJ_ERR_VALIDATION)', async () => {
    const dangling: MachineGraph = { ...base, edges: [...base.edges, { id: 'x', from: 'pending', to: 'nowhere', event: 'go', label: 'go' }] };
    await expect(renderSvg(dangling)).rejects.toMatchObject({ name: 'ValidationError', code: 'LJ_ERR_VALIDATION', message: expect.stringContaining('"nowhere"') });
  });

  it('is self-contained and follows the colour scheme', async () => {
    const text = await renderSvg(quarantine);
    expect(text.match(/https?:/g)).toEqual(['http:']);
    expect(text).toContain('xmlns="http://www.w3.org/2000/svg"');
    expect(text).not.toMatch(/url\(|href|@import|@font-face|<image|<script/);
    expect(text).toContain('@media (prefers-color-scheme:dark)');
  });

  it('is the same bytes every time', async () => {
    const [first, second] = [await renderSvg(quarantine), await renderSvg(quarantine)];
    expect(second).toBe(first);
    expect(await renderSvg(base, { direction: 'DOWN' })).toBe(await renderSvg(base, { direction: 'DOWN' }));
  });

  it.each(['RIGHT', 'DOWN'] as const)('keeps boxes and labels apart, inside the picture (%s)', async (direction) => {
    const svg = parseXml(await renderSvg(quarantine, { direction }));
    const elements = allElements(svg);
    const boxes = [
      ...elements.filter((el) => 'data-state' in el.attrs).map((el) => rectOf(el.children[0]!)),
      ...elements.filter((el) => 'data-edge' in el.attrs).map((el) => rectOf(el.children.find((c) => c.name === 'rect')!)),
    ];
    const [width, height] = [+svg.attrs.width!, +svg.attrs.height!];
    boxes.forEach((a, i) => {
      expect(a.width).toBeGreaterThan(0);
      expect(a.x >= 0 && a.y >= 0 && a.x + a.width <= width && a.y + a.height <= height, `box ${i} outside`).toBe(true);
      boxes.slice(i + 1).forEach((b, j) => {
        expect(overlap(a, b), `boxes ${i} and ${i + 1 + j} overlap`).toBe(false);
      });
    });
  });
});
