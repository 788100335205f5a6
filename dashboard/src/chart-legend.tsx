/**
 * A chart's legend of its own: a left-aligned row of swatches that wraps
 * like text, each with the value under the cursor, or the newest value when
 * the cursor is off the chart (uPlot's own legend is a centred table that
 * reads "Time: --" until hovered).
 */
export interface LegendLine {
  label: string;
  colour: string;
}

interface Props {
  lines: LegendLine[];
  /** The values at the cursor (or the newest), one per line; null where there is none. */
  values: Array<number | null>;
  /** The time of those values (s), or undefined for "the newest". */
  at: number | undefined;
  format(value: number): string;
}

const timeOfDay = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });

export function ChartLegend({ lines, values, at, format }: Props) {
  return (
    <div class="chart-legend" data-testid="chart-legend">
      <span class="chart-legend-at muted">{at === undefined ? 'now' : timeOfDay.format(at * 1000)}</span>
      {lines.map((line, i) => (
        <span key={line.label} class="chart-legend-item">
          <i class="swatch" style={{ background: line.colour }} aria-hidden="true" />
          <span class="chart-legend-label">{line.label}</span>
          <b class="chart-legend-value">{values[i] === null || values[i] === undefined ? '–' : format(values[i])}</b>
        </span>
      ))}
    </div>
  );
}
