/**
 * The overview: one row per job name with its jobs in each state, whether it
 * is paused (and a button to pause or resume it), its throughput over the
 * last five minutes with the hour as a sparkline, and how long its jobs
 * waited to start. Counts and pauses follow the live stream; throughput and
 * waits come from `GET /v1/dashboard/overview`, every 5 s while the tab is
 * visible. Clicking a count lists that state's jobs of that name. On a
 * phone the states that need attention (dead, failed) come first, and names
 * wrap instead of being cut.
 */
import { useState } from 'preact/hooks';
import { api, errorText } from './api';
import { confirmAction, toast } from './confirm';
import { count, duration, rate } from './format';
import { pauseQuestion, togglePause } from './pause-name';
import type { NameCounts, Overview as OverviewData, OverviewFigures, Paused } from './types';
import { useVisibleInterval } from './visible';
import { useMedia } from './media';

/** The base machine's states, in lifecycle order; a custom machine's states follow them. */
const BASE_STATES = ['pending', 'processing', 'failed', 'completed', 'dead', 'cancelled'];
/** On a phone, what needs attention first: the table scrolls sideways, and the first columns are what shows. */
const ATTENTION_FIRST = ['dead', 'failed', 'processing', 'pending', 'cancelled', 'completed'];
/** Where the overview is a phone's: the width at which the lifecycle order pushed dead and failed out of view. */
const NARROW = '(max-width: 600px)';
const STATE_TITLES: Record<string, string> = { failed: 'attempt failed, waiting to retry' };

interface Props {
  /** Jobs per state, then per name, as the live stream sends them. */
  names: NameCounts;
  paused: Paused;
  readOnly: boolean;
  onPaused(paused: Paused): void;
  /** A count was clicked: list that state's jobs of that name. */
  onSelect(name: string, state: string): void;
}

/** Per name, then per state. */
function byName(names: NameCounts): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = Object.create(null);
  for (const [state, perName] of Object.entries(names)) {
    for (const [name, n] of Object.entries(perName)) {
      out[name] ??= Object.create(null);
      out[name]![state] = n;
    }
  }
  return out;
}

function Sparkline({ figures, label }: { figures: OverviewFigures; label: string }) {
  const { completed, failed } = figures.perMinute;
  const max = Math.max(1, ...completed, ...failed);
  const points = (xs: number[]) => xs.map((n, i) => `${i},${(16 - (n / max) * 15).toFixed(1)}`).join(' ');
  return (
    <svg class="spark" viewBox={`0 0 ${Math.max(1, completed.length - 1)} 16`} preserveAspectRatio="none" role="img" aria-label={label}>
      <polyline class="spark-completed" points={points(completed)} />
      {failed.some((n) => n > 0) && <polyline class="spark-failed" points={points(failed)} />}
    </svg>
  );
}

/** Throughput, sparkline and waits: dashes until the server has sent them. */
function FigureCells({ figures, label }: { figures: OverviewFigures | undefined; label: string }) {
  if (!figures) return <td class="muted" colSpan={4}>–</td>;
  const { throughput, wait } = figures;
  return (
    <>
      <td class="num nowrap" data-overview-throughput>
        {rate(throughput.completed / 60)}
        {throughput.failed > 0 && <span class="err overview-failed">{rate(throughput.failed / 60)} failed</span>}
      </td>
      <td>
        <Sparkline figures={figures} label={`${label}: attempts per minute over the last hour`} />
      </td>
      <td class="num nowrap">{wait.p50 === null ? '–' : duration(wait.p50)}</td>
      <td class="num nowrap">{wait.p95 === null ? '–' : duration(wait.p95)}</td>
    </>
  );
}

export function Overview({ names, paused, readOnly, onPaused, onSelect }: Props) {
  const [data, setData] = useState<OverviewData | undefined>();
  const [error, setError] = useState<string | undefined>();
  useVisibleInterval(5000, () =>
    api.overview().then(
      (o) => {
        setData(o);
        setError(undefined);
      },
      (e) => setError(errorText(e)),
    ),
  );

  const narrow = useMedia(NARROW);
  const live = byName(names);
  const figures = new Map((data?.rows ?? []).map((r) => [r.name, r]));
  // A name the server folded into `other` stays there; a name newer than its last answer gets a row at once.
  const foldedNow = data?.other ? Object.keys(live).filter((n) => !figures.has(n)) : [];
  const rowNames = [...new Set([...figures.keys(), ...Object.keys(live).filter((n) => !foldedNow.includes(n)), ...paused.names])].sort();
  const otherCounts: Record<string, number> = Object.create(null);
  for (const name of foldedNow) for (const [state, n] of Object.entries(live[name]!)) otherCounts[state] = (otherCounts[state] ?? 0) + n;
  const present = new Set(Object.keys(names));
  const states = [...(narrow ? ATTENTION_FIRST : BASE_STATES), ...[...present].filter((s) => !BASE_STATES.includes(s)).sort()];

  const select = (name: string, state: string) => {
    onSelect(name, state);
    // The list sits below the lifecycle panel: bring it into view once it shows the pick.
    requestAnimationFrame(() => document.querySelector('[data-testid=job-list]')?.scrollIntoView({ block: 'start' }));
  };

  const toggle = async (name: string, isPaused: boolean) => {
    const { verb, body } = pauseQuestion(name, isPaused);
    if (!(await confirmAction(verb, body, verb))) return;
    try {
      const after = await togglePause(name, isPaused, paused);
      onPaused(after.paused);
      toast(after.done);
    } catch (e) {
      toast(errorText(e), 'error');
    }
  };

  if (rowNames.length === 0 && !data?.other) return <p class="muted">{error ?? (data ? 'No jobs yet.' : 'Loading…')}</p>;
  return (
    <>
      {error && <p class="inline-error">{error}</p>}
      {paused.all && <p class="muted">The whole queue is paused: no name is claimed.</p>}
      <div class="table-scroll overview-scroll">
        <table class="overview" data-testid="overview">
          <thead>
            <tr>
              <th class="overview-name">name</th>
              {states.map((s) => (
                <th key={s} class="num" title={Object.hasOwn(STATE_TITLES, s) ? STATE_TITLES[s] : undefined}>
                  {s}
                </th>
              ))}
              <th class="num" title={`completed per minute over the last ${(data?.windowMs ?? 300_000) / 60_000} min`}>
                throughput
              </th>
              <th>last hour</th>
              <th class="num" title="wait from due to start, median">wait p50</th>
              <th class="num" title="wait from due to start, 95th percentile">p95</th>
            </tr>
          </thead>
          <tbody>
            {rowNames.map((name) => {
              const counts = live[name] ?? {};
              const isPaused = paused.names.includes(name);
              return (
                <tr key={name} data-overview-name={name}>
                  <th scope="row" class="overview-name">
                    <span class="overview-label">{name}</span>
                    {isPaused && <span class="pill paused-badge">paused</span>}
                    {!readOnly && (
                      <button type="button" class="small" data-action={isPaused ? 'resume' : 'pause'} onClick={() => void toggle(name, isPaused)}>
                        {isPaused ? 'Resume' : 'Pause'}
                      </button>
                    )}
                  </th>
                  {states.map((s) => {
                    const n = counts[s] ?? 0;
                    return (
                      <td key={s} class="num" data-overview-state={s}>
                        {n === 0 ? (
                          <span class="muted">0</span>
                        ) : (
                          <button type="button" class={`count-link s-${s}`} title={`List ${name} jobs in ${s}`} onClick={() => select(name, s)}>
                            {count(n)}
                          </button>
                        )}
                      </td>
                    );
                  })}
                  <FigureCells figures={figures.get(name)} label={name} />
                </tr>
              );
            })}
            {data?.other && (
              <tr data-overview-other>
                <th scope="row" class="overview-name muted">
                  other ({data.other.names} names)
                </th>
                {states.map((s) => (
                  <td key={s} class="num">
                    {count(otherCounts[s] ?? 0)}
                  </td>
                ))}
                <FigureCells figures={data.other} label="other names" />
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </>
  );
}
