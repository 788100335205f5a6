/**
 * The last hour as uPlot charts: throughput, start latency and backlog per
 * name. Fetched on load and every 10 s while the tab is visible; redrawn in
 * the theme's colours and resized with their container.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { api, errorText } from './api';
import { firstDrawn, newestValues } from './chart-data';
import { ChartLegend, type LegendLine } from './chart-legend';
import type { Series } from './types';
import { useVisibleInterval } from './visible';

const REFRESH_MS = 10_000;
/** Throughput comes per second; ten-second buckets read calmer. */
const SMOOTH = 10;
const NAME_COLOURS = ['#2f6feb', '#8250df', '#1a7f37', '#bf8700', '#cf222e', '#0a7ea4', '#bc4c00', '#57606a'];

interface PlotProps {
  title: string;
  lines: LegendLine[];
  data: uPlot.AlignedData;
  theme: string;
  format(value: number): string;
  /** Values with gaps between them (no job started in a bucket): drawn as points too, or a lone value would not show. */
  sparse?: boolean;
}

const clock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const clockSeconds = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
const decimals = (v: number) => String(+v.toFixed(2));
const milliseconds = (v: number) => `${Math.round(v)} ms`;

function cssVar(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

/** Bucket start times (s) for an array ending at `end` (ms) with `step` (ms) buckets. */
function xs(length: number, step: number, end: number): number[] {
  return Array.from({ length }, (_, i) => (end - (length - i) * step) / 1000);
}

function smooth(values: number[], by: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < values.length; i += by) {
    const slice = values.slice(i, i + by);
    out.push(slice.reduce((a, b) => a + b, 0) / slice.length);
  }
  return out;
}

function Plot({ title, lines, data, theme, format, sparse = false }: PlotProps) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot>();
  const [cursor, setCursor] = useState<number | null>(null);
  const key = lines.map((l) => l.label).join('\n');

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const [text, grid] = [cssVar('--muted'), cssVar('--grid')];
    const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 }, font: '12px system-ui, sans-serif' };
    // One line of hours and minutes: uPlot's default adds a second line of dates that overlaps at narrow widths.
    const xAxis = {
      ...axis,
      space: 96,
      values: (_u: uPlot, ticks: number[]) => {
        const format = (ticks[1] ?? 0) - (ticks[0] ?? 0) < 60 ? clockSeconds : clock;
        return ticks.map((t) => format.format(t * 1000));
      },
    };
    const opts: uPlot.Options = {
      width: Math.max(200, el.clientWidth),
      height: 180,
      // Room on the right for the last time label, which is centred on its tick.
      padding: [10, 32, null, null],
      cursor: { drag: { x: false, y: false } },
      legend: { show: false },
      hooks: { setCursor: [(u) => setCursor(u.cursor.idx ?? null)] },
      scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
      axes: [xAxis, { ...axis, size: 52, values: (_u, ticks) => ticks.map(decimals) }],
      series: [{}, ...lines.map((l) => ({ label: l.label, stroke: l.colour, width: 1.5, fill: `${l.colour}1a`, points: { show: sparse, size: 4 } }))],
    };
    const u = new uPlot(opts, data, el);
    plot.current = u;
    const resize = new ResizeObserver(() => u.setSize({ width: Math.max(200, el.clientWidth), height: 180 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      u.destroy();
      plot.current = undefined;
    };
  }, [theme, key]);

  useEffect(() => {
    plot.current?.setData(data);
  }, [data]);

  const hovered = cursor !== null && cursor < data[0].length;
  const values = hovered ? data.slice(1).map((ys) => ys[cursor] ?? null) : newestValues(data);
  return (
    <figure class="plot">
      <figcaption>{title}</figcaption>
      <div ref={box} class="plot-box" />
      <ChartLegend lines={lines} values={values} at={hovered ? data[0][cursor] : undefined} format={format} />
    </figure>
  );
}

export function Charts({ theme }: { theme: string }) {
  const [series, setSeries] = useState<Series | undefined>();
  const [error, setError] = useState<string | undefined>();
  useVisibleInterval(REFRESH_MS, () =>
    api.series().then(
      (s) => {
        setSeries(s);
        setError(undefined);
      },
      (e) => setError(errorText(e)),
    ),
  );

  if (!series) return <p class="muted">{error ?? 'Loading charts…'}</p>;
  const { throughput: t, latency: l, backlog: b } = series;
  const tStep = t.step * SMOOTH;
  const completed = smooth(t.completed, SMOOTH);
  const failed = smooth(t.failed, SMOOTH);
  const names = Object.keys(b.names).sort();
  const backlogLength = Math.max(0, ...names.map((n) => b.names[n]!.length));
  // Nothing is drawn from before the data began (a queue made ten minutes ago has ten minutes).
  const since = series.since ?? 0;
  const trimmed = (x: number[], ys: Array<Array<number | null>>, step: number): uPlot.AlignedData => {
    const from = firstDrawn(x, step, since);
    return [x.slice(from), ...ys.map((y) => y.slice(from))];
  };
  return (
    <div class="charts">
      {error && <p class="inline-error">{error}</p>}
      <Plot
        title="Throughput (jobs/s)"
        theme={theme}
        lines={[
          { label: 'completed', colour: '#1a7f37' },
          { label: 'failed', colour: '#d4661b' },
        ]}
        format={decimals}
        data={trimmed(xs(completed.length, tStep, t.end), [completed, failed], tStep)}
      />
      <Plot
        title="Start latency (ms)"
        theme={theme}
        lines={[
          { label: 'p50', colour: '#2f6feb' },
          { label: 'p99', colour: '#8250df' },
        ]}
        format={milliseconds}
        sparse
        data={trimmed(xs(l.p50.length, l.step, l.end), [l.p50, l.p99], l.step)}
      />
      <Plot
        title="Backlog (pending per name)"
        theme={theme}
        lines={names.map((n, i) => ({ label: n, colour: NAME_COLOURS[i % NAME_COLOURS.length]! }))}
        format={decimals}
        data={trimmed(xs(backlogLength, b.step, b.end), names.map((n) => b.names[n]!), b.step)}
      />
    </div>
  );
}
