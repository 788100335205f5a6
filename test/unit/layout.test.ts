/**
 * The layout the architecture guide draws, held against the code's imports:
 * no circles among src/'s files, the engine's rooms in their order along the
 * job's path with its wiring on top, the store below the engine, and neither
 * store naming the other. Type imports count: a circle of types is a circle
 * a reader has to untie.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const SPEC = /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Each file of src/ and the files of src/ and machines/ it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles('src')) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    const targets = [...text.matchAll(SPEC)].map((m) => normalize(join(dirname(file), m[1]!)).replace(/\.js$/, '.ts'));
    graph.set(file, targets);
  }
  return graph;
}

/** The strongly connected groups of more than one file (Tarjan). */
function circles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) out.push(group.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

/** The engine's rooms, each allowed to import those before it (and lib, store, telemetry, machines, errors). */
const ROOMS = ['core', 'move', 'enqueue', 'run', 'claim', 'actions'] as const;
const room = (file: string): string | undefined => {
  const rel = relative('src/engine', file);
  if (rel.startsWith('..')) return undefined;
  const [first, ...rest] = rel.split('/');
  return rest.length === 0 ? 'wiring' : first;
};

describe('the layout', () => {
  const graph = importGraph();
  const arrows = [...graph].flatMap(([from, tos]) => tos.map((to) => ({ from, to })));

  it('has no circles among the files of src/', () => {
    expect(circles(graph)).toEqual([]);
  });

  it("keeps the engine's rooms in order along the job's path, the wiring on top", () => {
    const up = arrows.filter(({ from, to }) => {
      const a = room(from);
      const b = room(to);
      if (a === undefined || b === undefined || a === b) return false;
      if (b === 'wiring') return true; // nothing in a room names the wiring
      if (a === 'wiring') return false;
      return ROOMS.indexOf(b as (typeof ROOMS)[number]) > ROOMS.indexOf(a as (typeof ROOMS)[number]);
    });
    expect(up.map(({ from, to }) => `${from} → ${to}`)).toEqual([]);
    // Every folder of the engine is a room of the list (a new one takes its place in the order).
    const folders = new Set([...graph.keys()].map(room).filter((r): r is string => r !== undefined && r !== 'wiring'));
    expect([...folders].sort()).toEqual([...ROOMS].sort());
  });

  it('keeps the store below the engine, and each store apart from the other', () => {
    const wrong = arrows.filter(
      ({ from, to }) =>
        (from.startsWith('src/store/') && !to.startsWith('src/store/') && !to.startsWith('src/lib/') && !to.startsWith('src/errors') && !to.startsWith('machines/')) ||
        (from.startsWith('src/store/sqlite/') && to.startsWith('src/store/postgres/')) ||
        (from.startsWith('src/store/postgres/') && to.startsWith('src/store/sqlite/')),
    );
    expect(wrong.map(({ from, to }) => `${from} → ${to}`)).toEqual([]);
  });

  it('finds the arrows it judges (a check that reads no imports would pass anything)', () => {
    expect(arrows.length).toBeGreaterThan(500);
    expect(circles(new Map([['a', ['b']], ['b', ['a']]]))).toEqual([['a', 'b']]);
  });
});
