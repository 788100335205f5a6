/** A hand-written SVG bar chart: one group per throughput scenario, bars scaled to the group's best. */
import { fmt } from './stats.js';
import { figure, metricOf } from './summary.js';
import type { ScenarioResult } from './types.js';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function chartSvg(scenarios: readonly ScenarioResult[], subtitle: string): string {
  const W = 900;
  const labelW = 260;
  const barMax = W - labelW - 150;
  const barH = 16;
  const gap = 4;
  const parts: string[] = [];
  let y = 56;
  for (const s of scenarios) {
    if (!s.chartMetric) continue;
    const m = metricOf(s, s.chartMetric);
    const bars = s.rows
      .map((r) => ({ label: r.label, system: r.system, v: figure(r, s.chartMetric!).median }))
      .filter((b) => Number.isFinite(b.v));
    if (bars.length === 0) continue;
    const top = Math.max(...bars.map((b) => b.v));
    parts.push(`<text x="10" y="${y + 12}" class="h">${esc(s.title)} (${esc(m.unit)}, median)</text>`);
    y += 22;
    for (const b of bars) {
      const w = Math.max(1, Math.round((b.v / top) * barMax));
      const cls = b.system === 'litejobs' ? 'lj' : b.system === 'raw' ? 'raw' : 'peer';
      parts.push(
        `<text x="${labelW - 8}" y="${y + 12}" text-anchor="end">${esc(b.label)}</text>`,
        `<rect x="${labelW}" y="${y}" width="${w}" height="${barH}" class="${cls}"/>`,
        `<text x="${labelW + w + 6}" y="${y + 12}">${esc(fmt(b.v))}</text>`,
      );
      y += barH + gap;
    }
    y += 14;
  }
  const H = y + 10;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    '<style>.h{font-weight:bold;font-size:13px}.lj{fill:#2f7d4f}.peer{fill:#7a8aa6}.raw{fill:#c8a24a}text{fill:#222}</style>',
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    `<text x="10" y="22" class="h" font-size="15">litejobs and its peers: throughput (longer is better)</text>`,
    `<text x="10" y="40">${esc(subtitle)}</text>`,
    ...parts,
    '</svg>',
    '',
  ].join('\n');
}
