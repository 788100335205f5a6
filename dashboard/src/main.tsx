/**
 * The litejobs dashboard: loads the configuration (asking for a token when
 * the server wants one), follows the live stream, and lays the panels out.
 */
import { render } from 'preact';
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import './theme.css';
import { ApiError, api, errorText, getToken, setToken } from './api';
import { Charts } from './charts';
import { Overlays } from './confirm';
import { applyTheme, Header, initialTheme, type Theme } from './header';
import { JobDetail } from './job-detail';
import { JobList } from './job-list';
import { Limits } from './limits';
import { Overview } from './overview';
import { EdgeRates, graphForName, namesOfGraph, samePaused } from './live';
import { openEventStream, type Connection } from './sse';
import { Lifecycle } from './lifecycle';
import type { PathHighlight } from './statechart';
import { TokenForm } from './token';
import type { DashboardConfig, NameCounts, Paused } from './types';
import { Schedules } from './schedules';
import { Workers } from './workers';

const PULSE_MS = 1200;

function jobFromHash(): number | undefined {
  const m = /^#job=(\d+)$/.exec(location.hash);
  return m ? Number(m[1]) : undefined;
}

function App() {
  const [theme, setTheme] = useState<Theme>(initialTheme);
  const [config, setConfig] = useState<DashboardConfig | undefined>();
  const [needToken, setNeedToken] = useState(false);
  const [bootError, setBootError] = useState<string | undefined>();
  const [names, setNames] = useState<NameCounts>({});
  const [paused, setPaused] = useState<Paused>({ all: false, names: [] });
  const [connection, setConnection] = useState<Connection | undefined>();
  /** `name`: picked in the overview, the job list filters by it. */
  const [selected, setSelected] = useState<{ graph: string; state: string; name?: string } | undefined>();
  const [openJob, setOpenJob] = useState(jobFromHash);
  const [touched, setTouched] = useState(0);
  const [path, setPath] = useState<{ name: string; highlight: PathHighlight } | undefined>();
  const [reload, setReload] = useState(0);
  const [edgeView, setEdgeView] = useState<{ rates: Map<string, number>; pulsing: Set<string> }>({ rates: new Map(), pulsing: new Set() });
  const openRef = useRef(openJob);
  openRef.current = openJob;

  const boot = useCallback(async () => {
    try {
      const cfg = await api.config();
      const counts = await api.counts();
      setNames(counts.names);
      setPaused(counts.paused ?? cfg.paused);
      setConfig(cfg);
      setNeedToken(false);
      setBootError(undefined);
      setSelected((s) => s ?? (cfg.graphs[0] && { graph: cfg.graphs[0].id, state: cfg.graphs[0].graph.initial }));
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) {
        setNeedToken(true);
        setBootError(getToken() ? 'That token was not accepted.' : undefined);
      } else setBootError(errorText(e));
    }
  }, []);

  useEffect(() => {
    void boot();
  }, [boot]);

  useEffect(() => applyTheme(theme, false), [theme]);

  useEffect(() => {
    const onHash = () => setOpenJob(jobFromHash());
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);

  useEffect(() => {
    if (openJob !== undefined && window.innerWidth < 1000) {
      requestAnimationFrame(() => document.querySelector('[data-testid=job-detail]')?.scrollIntoView({ block: 'start' }));
    }
  }, [openJob]);

  // The live stream: counts, edge rates and pulses, and news of the open job.
  useEffect(() => {
    if (!config) return;
    const rates = new EdgeRates(config.graphs);
    const pulseUntil = new Map<string, number>();
    let lastAt = Date.now();
    const refresh = () => {
      const now = Date.now();
      const pulsing = new Set<string>();
      for (const [key, until] of pulseUntil) if (until > now) pulsing.add(key);
      setEdgeView({ rates: rates.rates(lastAt), pulsing });
    };
    const timer = setInterval(refresh, 500);
    const stop = openEventStream({
      onTick(tick) {
        lastAt = tick.at;
        if (tick.names) setNames(tick.names);
        // Kept as it was when unchanged: the job list need not render again for it.
        if (tick.paused) setPaused((p) => (samePaused(p, tick.paused) ? p : tick.paused));
        const now = Date.now();
        for (const key of rates.add(tick)) pulseUntil.set(key, now + PULSE_MS);
        if (openRef.current !== undefined && tick.recent?.some((r) => r.id === openRef.current)) setTouched((n) => n + 1);
        refresh();
      },
      onReset() {
        rates.clear();
        void boot();
        setReload((n) => n + 1);
      },
      onConnection: setConnection,
      onError(error) {
        if (error.status === 401) {
          setNeedToken(true);
          setBootError('The server no longer accepts this token.');
        }
      },
    });
    return () => {
      clearInterval(timer);
      stop();
    };
  }, [config, boot]);

  const graph = config?.graphs.find((g) => g.id === selected?.graph);
  // The names known at load and every name the live counts have shown since (a job name first enqueued after the page opened).
  const knownNames = useMemo(() => {
    const all = new Set(config?.names ?? []);
    for (const byName of Object.values(names)) for (const name of Object.keys(byName)) all.add(name);
    return [...all].sort();
  }, [config, names]);
  // Keyed on the names themselves: a tick with the same names keeps the list (and the job list's render) as it was.
  const knownKey = knownNames.join('\n');
  const listNames = useMemo(() => (config && graph ? namesOfGraph(config.graphs, graph, knownKey ? knownKey.split('\n') : []) : []), [config, graph, knownKey]);
  const readOnly = (config?.readOnly ?? false) || needToken;
  const machineOf = useCallback((name: string) => (config ? graphForName(config.graphs, name)?.graph : undefined), [config]);
  const onPath = useCallback(
    (name: string | undefined, highlight: PathHighlight | undefined) => setPath(name && highlight ? { name, highlight } : undefined),
    [],
  );
  const pathGraph = config && path ? graphForName(config.graphs, path.name)?.id : undefined;

  return (
    <>
      <Header connection={connection} readOnly={readOnly} theme={theme} onTheme={(t) => {
          setTheme(t);
          applyTheme(t, true);
        }} />
      <main>
        {needToken && (
          <TokenForm
            error={bootError}
            onToken={(token) => {
              setToken(token);
              void boot();
            }}
          />
        )}
        {!needToken && !config && <p class="muted">{bootError ?? 'Loading…'}</p>}
        {config && (
          <>
            <section class="panel" aria-labelledby="overview-title">
              <div class="panel-head">
                <h2 id="overview-title">Overview</h2>
                <span class="muted small-text">per job name · throughput and waits over the last 5 min · select a count to list its jobs</span>
              </div>
              <Overview
                names={names}
                paused={paused}
                readOnly={readOnly}
                onPaused={setPaused}
                onSelect={(name, state) => setSelected({ graph: graphForName(config.graphs, name)?.id ?? config.graphs[0]!.id, state, name })}
              />
            </section>
            <section class="panel" aria-labelledby="machine-title">
              <div class="panel-head">
                <h2 id="machine-title">Job lifecycle</h2>
                <span class="muted small-text">counts now · edge rates over the last 5 min · select a state to list its jobs</span>
              </div>
              <Lifecycle
                config={config}
                names={names}
                rates={edgeView.rates}
                pulsing={edgeView.pulsing}
                selected={selected}
                path={path?.highlight}
                pathGraph={pathGraph}
                onSelect={(graph, state) => setSelected({ graph, state })}
              />
            </section>
            <div class="split">
              {selected ? (
                <JobList
                  key={selected.graph}
                  graphLabel={config.graphs.length > 1 ? selected.graph : undefined}
                  accepts={(name) => config.graphs.length === 1 || graphForName(config.graphs, name)?.id === selected.graph}
                  state={selected.state}
                  names={listNames}
                  nameFilter={selected.name}
                  readOnly={readOnly}
                  paused={paused}
                  openJob={openJob}
                  reload={reload}
                  onPaused={setPaused}
                />
              ) : (
                <section class="panel muted">Select a state to list its jobs.</section>
              )}
              {openJob !== undefined ? (
                <JobDetail
                  key={openJob}
                  id={openJob}
                  touched={touched}
                  edgesFor={machineOf}
                  onPath={onPath}
                  readOnly={readOnly}
                  onClose={() => {
                    history.replaceState(null, '', location.pathname + location.search);
                    setOpenJob(undefined);
                  }}
                />
              ) : (
                <section class="panel placeholder">
                  <p class="muted">Select a job to see its payload, errors and timeline.</p>
                </section>
              )}
            </div>
            <section class="panel" aria-labelledby="charts-title">
              <h2 id="charts-title">Last hour</h2>
              <Charts theme={theme} />
            </section>
            <section class="panel" aria-labelledby="workers-title">
              <h2 id="workers-title">Workers</h2>
              <Workers />
            </section>
            <section class="panel" aria-labelledby="schedules-title">
              <h2 id="schedules-title">Schedules</h2>
              <Schedules />
            </section>
            <section class="panel" aria-labelledby="limits-title">
              <h2 id="limits-title">Limits</h2>
              <Limits readOnly={readOnly} />
            </section>
          </>
        )}
      </main>
      <Overlays />
    </>
  );
}

applyTheme(initialTheme(), false);
render(<App />, document.getElementById('app')!);
