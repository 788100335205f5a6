/**
 * A `MachineGraph` as a self-contained SVG: laid out by elkjs
 * (svg-layout.ts), drawn with a `<style>` of its own that follows the
 * reader's light or dark colour scheme. No fonts, images or links are
 * fetched, and the same graph always gives the same bytes, so a committed
 * copy can be checked for drift.
 */
import type { DiagramDirection } from './dot.js';
import type { MachineGraph, MachineGraphEdge } from './machine-graph.js';
import { num, routePaths } from './route-paths.js';
import { INITIAL_RADIUS, LABEL_FONT_SIZE, layoutGraph, STATE_FONT_SIZE, type Box } from './svg-layout.js';

export interface SvgOptions {
  /** Default `'RIGHT'`: states flow left to right. */
  direction?: DiagramDirection;
  /** The accessible name (`<title>`). Default `'State diagram'`. */
  title?: string;
}

const FINAL_INSET = 3.5;

const STYLE = [
  'text{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono","Liberation Mono",monospace}',
  '.background{fill:#ffffff}',
  `.state rect{fill:#f1f5fb;stroke:#4a6a8f;stroke-width:1.5}`,
  `.state text{fill:#1f2328;font-size:${STATE_FONT_SIZE}px}`,
  '.edge path.line,.initial path.line{fill:none;stroke:#6e7781;stroke-width:1.4}',
  '.edge path.arrow,.initial path.arrow,.initial circle{fill:#6e7781}',
  '.edge rect{fill:#ffffff;fill-opacity:0.85}',
  `.edge text{fill:#424a53;font-size:${LABEL_FONT_SIZE}px}`,
  '.edge tspan.guard{fill:#8250df}',
  '@media (prefers-color-scheme:dark){',
  '.background{fill:#0d1117}',
  '.state rect{fill:#161b22;stroke:#7aa2d6}',
  '.state text{fill:#e6edf3}',
  '.edge path.line,.initial path.line{stroke:#8b949e}',
  '.edge path.arrow,.initial path.arrow,.initial circle{fill:#8b949e}',
  '.edge rect{fill:#0d1117}',
  '.edge text{fill:#c9d1d9}',
  '.edge tspan.guard{fill:#d2a8ff}',
  '}',
].join('\n');

/** Whether XML 1.0 can hold this code point (control characters, lone surrogates and U+FFFE/F it cannot). */
function isXmlChar(code: number): boolean {
  if (code < 0x20) return code === 0x09 || code === 0x0a || code === 0x0d;
  return !(code >= 0xd800 && code <= 0xdfff) && code !== 0xfffe && code !== 0xffff;
}

/** Text to show: SVG drops a line break inside `<text>` (xml:space default), so it becomes a space. */
function shown(text: string): string {
  return escapeXml(text.replace(/[\t\r\n]+/g, ' '));
}

/** Text and attribute values as XML; characters XML 1.0 cannot hold become U+FFFD. */
function escapeXml(text: string): string {
  let chars = '';
  for (const char of text) chars += isXmlChar(char.codePointAt(0)!) ? char : '\uFFFD';
  return chars
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}


function rect(box: Box, radius: number, inset = 0): string {
  return `<rect x="${num(box.x + inset)}" y="${num(box.y + inset)}" width="${num(box.width - 2 * inset)}" height="${num(box.height - 2 * inset)}" rx="${num(radius)}"/>`;
}

/** Centred text whose visual middle sits on the box's middle (0.35 em below it is the baseline). */
function centredText(box: Box, fontSize: number, content: string): string {
  const x = box.x + box.width / 2;
  const y = box.y + box.height / 2 + fontSize * 0.35;
  return `<text x="${num(x)}" y="${num(y)}" text-anchor="middle">${content}</text>`;
}

/** The label with its `[guard]` / `[else]` part in a tspan of its own, so it can be coloured apart. */
function labelContent(edge: MachineGraphEdge): string {
  const suffix = edge.guard !== undefined ? ` [${edge.guard}]` : edge.else ? ' [else]' : '';
  if (suffix === '' || !edge.label.endsWith(suffix)) return shown(edge.label);
  const head = edge.label.slice(0, edge.label.length - suffix.length);
  return `${shown(head)} <tspan class="guard">${shown(suffix.trimStart())}</tspan>`;
}

/**
 * Lays the graph out and draws it: rounded boxes for states (a double border
 * for final ones), a dot with an arrow into the initial state, and each edge
 * as a path with an arrowhead and its label. Each state's group carries
 * `data-state` (its id) and each edge's `data-edge` (its id), so a page can
 * find and highlight them.
 *
 * @example
 * import { writeFileSync } from 'node:fs';
 * import { createJobMachine, machineGraph, renderSvg } from 'litejobs';
 * writeFileSync('lifecycle.svg', await renderSvg(machineGraph(createJobMachine()), { direction: 'DOWN' }));
 */
export async function renderSvg(graph: MachineGraph, options: SvgOptions = {}): Promise<string> {
  const layout = await layoutGraph(graph, options.direction ?? 'RIGHT');
  const [width, height] = [num(layout.width), num(layout.height)];
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img">`,
    `<title>${escapeXml(options.title ?? 'State diagram')}</title>`,
    `<style>\n${STYLE}\n</style>`,
    `<rect class="background" x="0" y="0" width="${width}" height="${height}" rx="8"/>`,
  ];
  const initial = routePaths(layout.initial.points);
  out.push(
    `<g class="initial"><circle cx="${num(layout.initial.center.x)}" cy="${num(layout.initial.center.y)}" r="${INITIAL_RADIUS}"/>` +
      `<path class="line" d="${initial.line}"/><path class="arrow" d="${initial.arrow}"/></g>`,
  );
  for (const { edge, points, label } of layout.edges) {
    const route = routePaths(points);
    out.push(
      `<g class="edge" data-edge="${escapeXml(edge.id)}"><path class="line" d="${route.line}"/><path class="arrow" d="${route.arrow}"/>` +
        `${rect(label, 3)}${centredText(label, LABEL_FONT_SIZE, labelContent(edge))}</g>`,
    );
  }
  for (const placed of layout.states) {
    const { state } = placed;
    const classes = ['state', ...(state.final ? ['final'] : []), ...(state.delayed ? ['delayed'] : [])].join(' ');
    const border = state.final ? `${rect(placed, 10)}${rect(placed, 7, FINAL_INSET)}` : rect(placed, 10);
    out.push(`<g class="${classes}" data-state="${escapeXml(state.id)}">${border}${centredText(placed, STATE_FONT_SIZE, shown(state.id))}</g>`);
  }
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
