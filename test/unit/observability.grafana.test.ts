/**
 * docs/guides/observability/grafana-dashboard.json cannot drift from /metrics:
 * every PromQL expression in it (panel targets and variable queries), and in
 * alerts.yml, names only metrics that a real scrape of a litejobs server
 * declares (a histogram's `_bucket`, `_sum` and `_count` included) and only
 * labels its series carry; promtool parses every dashboard expression; and
 * the file has the shape Grafana imports: a Prometheus datasource variable
 * that every panel and target uses, panels with targets, unique panel ids,
 * panels that do not overlap.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defineJob } from '../../src/index.js';
import { useServers } from '../helpers/http-server.js';
import { tempDir } from '../helpers/temp-db.js';
import { events } from '../helpers/wait.js';

const DIR = fileURLToPath(new URL('../../docs/guides/observability/', import.meta.url));
const DASHBOARD_FILE = join(DIR, 'grafana-dashboard.json');
const ALERTS_FILE = join(DIR, 'alerts.yml');

interface Target {
  refId: string;
  expr: string;
  datasource?: { type?: string; uid?: string };
}
interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { x: number; y: number; w: number; h: number };
  datasource?: { type?: string; uid?: string };
  targets?: Target[];
}
interface Variable {
  type: string;
  name: string;
  query: string;
  datasource?: { type?: string; uid?: string };
}
interface Dashboard {
  title: string;
  uid: string;
  schemaVersion: number;
  panels: Panel[];
  templating: { list: Variable[] };
}

const dashboard = JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8')) as Dashboard;
const dataPanels = dashboard.panels.filter((p) => p.type !== 'row');

/** Every expression of the dashboard, named by where it is. */
function dashboardExpressions(): Array<{ where: string; expr: string }> {
  const out = dataPanels.flatMap((p) => (p.targets ?? []).map((t) => ({ where: `panel ${p.id} "${p.title}" ${t.refId}`, expr: t.expr })));
  for (const v of dashboard.templating.list) {
    const m = v.type === 'query' ? /^label_values\((.+),\s*(\w+)\)$/.exec(v.query) : null;
    // label_values(selector, label): the selector is PromQL, the label must be on it.
    if (m) out.push({ where: `variable ${v.name}`, expr: `sum by (${m[2]}) (${m[1]})` });
  }
  return out;
}

/** The `expr:` lines of the alert rules. */
function alertExpressions(): Array<{ where: string; expr: string }> {
  return [...readFileSync(ALERTS_FILE, 'utf8').matchAll(/^\s*- alert: (\S+)\n(?:\s*#.*\n)*\s*expr: (.+)$/gm)].map((m) => ({ where: `alert ${m[1]}`, expr: m[2]! }));
}

/** Grafana's interval variables as PromQL durations, for promtool. */
const withIntervals = (expr: string) => expr.replace(/\$__(rate_interval|interval|range)/g, '5m');

const KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'and', 'or', 'unless', 'offset', 'inf', 'nan']);

/** The metric names an expression selects, and the labels it matches or groups by (per metric where a selector names one). */
function references(expr: string): { metrics: string[]; matchers: Array<{ metric: string | null; label: string }>; grouping: string[] } {
  const matchers: Array<{ metric: string | null; label: string }> = [];
  for (const m of expr.matchAll(/([a-zA-Z_:][\w:]*)?\s*\{([^}]*)\}/g)) {
    for (const l of m[2]!.matchAll(/([a-zA-Z_]\w*)\s*(?:=~|!~|!=|=)\s*"/g)) matchers.push({ metric: m[1] ?? null, label: l[1]! });
  }
  const grouping = [...expr.matchAll(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)/g)].flatMap((m) =>
    m[1]!
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const metrics = [...bare.matchAll(/(?<![\w.$:])([a-zA-Z_:][\w:]*)(?![\w:]|\s*\()/g)].map((m) => m[1]!).filter((name) => !KEYWORDS.has(name.toLowerCase()));
  return { metrics, matchers, grouping };
}

/** What a scrape exports: each series name (histograms with their suffixes) and the labels seen on it. */
function exported(text: string): Map<string, Set<string>> {
  const names = new Map<string, Set<string>>();
  for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const [name, type] = [m[1]!, m[2]!];
    const series = type === 'histogram' ? ['_bucket', '_sum', '_count'].map((s) => name + s) : type === 'summary' ? [name, `${name}_sum`, `${name}_count`] : [name];
    for (const s of series) names.set(s, new Set(s.endsWith('_bucket') ? ['le'] : []));
  }
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)\{([^}]*)\}/.exec(line);
    if (!m) continue;
    for (const l of m[2]!.matchAll(/(\w+)="/g)) names.get(m[1]!)?.add(l[1]!);
  }
  return names;
}

/** Labels Prometheus adds to every series it scrapes. */
const TARGET_LABELS = ['job', 'instance'];

function problems(list: Array<{ where: string; expr: string }>, scrape: Map<string, Set<string>>): string[] {
  const out: string[] = [];
  for (const { where, expr } of list) {
    const { metrics, matchers, grouping } = references(expr);
    if (metrics.length === 0) out.push(`${where}: names no metric: ${expr}`);
    for (const name of metrics) if (!scrape.has(name)) out.push(`${where}: ${name} is not exported`);
    const labelsOf = (name: string) => [...(scrape.get(name) ?? []), ...TARGET_LABELS];
    for (const { metric, label } of matchers) {
      const allowed = metric === null ? metrics.flatMap(labelsOf) : labelsOf(metric);
      if (!allowed.includes(label)) out.push(`${where}: label "${label}" is not on ${metric ?? metrics.join(', ')}`);
    }
    for (const label of grouping) if (!metrics.flatMap(labelsOf).includes(label)) out.push(`${where}: groups by "${label}", on none of ${metrics.join(', ')}`);
  }
  return out;
}

const serve = useServers();

/** A scrape of a litejobs server with process metrics, after jobs completed and died, one name paused. */
async function scrape(): Promise<Map<string, Set<string>>> {
  const s = await serve({
    queue: {
      jobs: [
        defineJob({ name: 'ok', handler: () => 'done' }),
        defineJob({ name: 'bad', retry: { attempts: 1 }, handler: () => { throw new Error('no'); } }),
      ],
    },
    server: { metrics: { processMetrics: true } },
  });
  const finished = events(s.queue.events$, (e) => e.to === 'completed' || e.to === 'dead', 4);
  await s.queue.enqueueMany([1, 2, 3].map((n) => ({ name: 'ok', payload: n })));
  await s.queue.enqueue('bad', {});
  await s.queue.start();
  await finished;
  await s.queue.pause('ok');
  const res = await fetch(`${s.url}/metrics`);
  expect(res.status).toBe(200);
  return exported(await res.text());
}

describe('docs/guides/observability/grafana-dashboard.json', () => {
  it('is a dashboard with a Prometheus datasource variable that every panel and target uses', () => {
    expect(dashboard).toMatchObject({ title: expect.any(String), uid: expect.any(String), schemaVersion: expect.any(Number) });
    const ds = dashboard.templating.list.filter((v) => v.type === 'datasource');
    expect(ds.map((v) => v.query)).toEqual(['prometheus']);
    const uid = `\${${ds[0]!.name}}`;
    const wrong = [
      ...dataPanels.filter((p) => p.datasource?.type !== 'prometheus' || p.datasource.uid !== uid).map((p) => `panel ${p.id}`),
      ...dataPanels.flatMap((p) => (p.targets ?? []).filter((t) => t.datasource?.uid !== uid).map((t) => `panel ${p.id} target ${t.refId}`)),
      ...dashboard.templating.list.filter((v) => v.type === 'query' && v.datasource?.uid !== uid).map((v) => `variable ${v.name}`),
    ];
    expect(wrong).toEqual([]);
  });

  it('has panels with unique ids, each with targets, none overlapping, all within 24 columns', () => {
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(dataPanels.length).toBeGreaterThan(10);
    for (const p of dataPanels) {
      expect(['timeseries', 'stat'], `panel ${p.id}`).toContain(p.type);
      expect(p.title.length, `panel ${p.id} has a title`).toBeGreaterThan(0);
      expect(p.targets?.length ?? 0, `panel ${p.id} "${p.title}" has targets`).toBeGreaterThan(0);
      const refIds = p.targets!.map((t) => t.refId);
      expect(new Set(refIds).size, `panel ${p.id}: unique refIds`).toBe(refIds.length);
      for (const t of p.targets!) expect(t.expr.trim().length, `panel ${p.id} ${t.refId}`).toBeGreaterThan(0);
    }
    const boxes = dashboard.panels.map((p) => ({ id: p.id, ...p.gridPos }));
    for (const b of boxes) expect(b.x + b.w, `panel ${b.id} fits in 24 columns`).toBeLessThanOrEqual(24);
    const overlaps = boxes.flatMap((a, i) =>
      boxes.slice(i + 1).filter((b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h).map((b) => `${a.id} and ${b.id}`),
    );
    expect(overlaps).toEqual([]);
  });

  it('passes promtool: every expression parses (as a recording rule)', () => {
    const { dir, cleanup } = tempDir();
    try {
      const rules = dashboardExpressions().map((e, i) => `      - record: litejobs_dashboard:expr_${i}\n        expr: ${JSON.stringify(withIntervals(e.expr))}`);
      const file = join(dir, 'dashboard-rules.yml');
      writeFileSync(file, `groups:\n  - name: grafana-dashboard\n    rules:\n${rules.join('\n')}\n`);
      const check = spawnSync('promtool', ['check', 'rules', file], { encoding: 'utf8' });
      expect(check.error, 'promtool is missing: apt-get install prometheus (.ci/run does)').toBeUndefined();
      expect({ status: check.status, out: `${check.stdout}${check.stderr}`.trim() }).toEqual({ status: 0, out: expect.stringContaining(`SUCCESS: ${rules.length} rules found`) });
    } finally {
      cleanup();
    }
  });

  it('names only metrics and labels a real /metrics scrape exports, as do the alert rules', async () => {
    const names = await scrape();
    // The scrape itself: litejobs' own metrics and the process metrics are there.
    expect([...names.keys()]).toEqual(expect.arrayContaining(['litejobs_jobs', 'litejobs_enqueue_to_start_seconds_bucket', 'litejobs_process_nodejs_eventloop_lag_p99_seconds']));
    expect(names.get('litejobs_jobs')).toEqual(new Set(['state', 'name']));
    const dashboardExprs = dashboardExpressions();
    const alertExprs = alertExpressions();
    expect(alertExprs.length).toBe(6);
    expect(problems(dashboardExprs, names)).toEqual([]);
    expect(problems(alertExprs, names)).toEqual([]);
    // Every litejobs metric has a panel.
    const used = new Set(dashboardExprs.flatMap((e) => references(e.expr).metrics));
    const own = [...names.keys()].filter((n) => n.startsWith('litejobs_') && !n.startsWith('litejobs_process_'));
    const family = (n: string) => n.replace(/_(bucket|sum|count)$/, '');
    expect(own.filter((n) => ![...used].some((u) => family(u) === family(n))).map(family)).toEqual([]);
  });
});
