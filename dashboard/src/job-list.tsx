/**
 * The jobs in the selected state: filter by name, search the payload with a
 * `where` expression, page with the server's cursor, and act on them
 * (cancel pending ones, retry dead ones, pause or resume a name).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, errorText } from './api';
import { confirmAction, toast } from './confirm';
import { count, excerpt } from './format';
import { When } from './when';
import type { JobSummary, Paused } from './types';
import { type Act, ListActions } from './list-actions';

interface Props {
  /** Shown in the title when the page draws more than one machine. */
  graphLabel: string | undefined;
  /**
   * Whether a job belongs to this list's machine. The API filters by one name
   * at most, so with several machines the other machines' jobs are dropped here.
   */
  accepts(name: string): boolean;
  state: string;
  names: string[];
  /** A name picked elsewhere (the overview): the filter switches to it whenever it or the state changes. */
  nameFilter?: string;
  readOnly: boolean;
  paused: Paused;
  openJob: number | undefined;
  /** Bumped by the page to ask for a reload (after a reset, say). */
  reload: number;
  onPaused(paused: Paused): void;
}

const PAGE = 25;

export function JobList({ graphLabel, accepts, state, names, nameFilter, readOnly, paused, openJob, reload, onPaused }: Props) {
  const [name, setName] = useState(nameFilter ?? '');
  const [draft, setDraft] = useState('');
  const [where, setWhere] = useState('');
  const [jobs, setJobs] = useState<JobSummary[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [scanned, setScanned] = useState(0);
  const [error, setError] = useState<string | undefined>();
  const [loading, setLoading] = useState(false);
  const [chosen, setChosen] = useState<Set<number>>(new Set());
  const [version, setVersion] = useState(0);
  const current = useRef<AbortController>();

  const load = async (cursor: string | undefined) => {
    current.current?.abort();
    const ctl = new AbortController();
    current.current = ctl;
    setLoading(true);
    try {
      const query = { state, limit: PAGE, ...(name && { name }), ...(where && { where }), ...(cursor && { cursor }) };
      const page = await api.jobs(query, ctl.signal);
      if (ctl.signal.aborted) return;
      const mine = page.jobs.filter((job) => accepts(job.name));
      setJobs((rows) => (cursor ? [...rows, ...mine] : mine));
      setNext(page.next);
      setScanned((n) => (cursor ? n : 0) + (page.scanned ?? 0));
      setError(undefined);
    } catch (e) {
      if (ctl.signal.aborted) return;
      setError(errorText(e));
      if (!cursor) {
        setJobs([]);
        setNext(null);
      }
    } finally {
      if (!ctl.signal.aborted) setLoading(false);
    }
  };

  useEffect(() => {
    setChosen(new Set());
    void load(undefined);
    return () => current.current?.abort();
  }, [state, name, where, reload, version]);

  useEffect(() => {
    if (name && !names.includes(name)) setName('');
  }, [names.join('\n')]);

  useEffect(() => {
    if (nameFilter !== undefined) setName(nameFilter);
  }, [nameFilter, state]);

  /** Asks, runs, reports, reloads. */
  const act: Act = async (title, body, ok, run) => {
    if (!(await confirmAction(title, body, ok))) return;
    try {
      toast(await run());
    } catch (e) {
      toast(errorText(e), 'error');
    }
    setVersion((v) => v + 1);
  };

  // A selection can be cancelled, retried or deleted: any state but processing (its jobs are running).
  const selectable = !readOnly && state !== 'processing';

  return (
    <section class="panel" aria-labelledby="list-title" data-testid="job-list">
      <div class="panel-head">
        <h2 id="list-title">
          Jobs {graphLabel && <span class="muted">{graphLabel}</span>} <span class={`pill s-${state}`}>{state}</span>
        </h2>
        <button type="button" class="ghost" onClick={() => setVersion((v) => v + 1)} disabled={loading}>
          Refresh
        </button>
      </div>
      <form
        class="filters"
        onSubmit={(event) => {
          event.preventDefault();
          setWhere(draft.trim());
        }}
      >
        <label>
          <span>Name</span>
          <select value={name} onChange={(e) => setName(e.currentTarget.value)}>
            <option value="">all names</option>
            {names.map((n) => (
              <option key={n} value={n}>
                {n}
                {paused.names.includes(n) ? ' (paused)' : ''}
              </option>
            ))}
          </select>
        </label>
        <label class="grow">
          <span>Payload search</span>
          <input type="search" value={draft} placeholder="payload.customer = 42" onInput={(e) => setDraft(e.currentTarget.value)} />
        </label>
        <button type="submit">Search</button>
      </form>
      {error && (
        <p class="inline-error" role="alert">
          {error}
        </p>
      )}
      {readOnly ? (
        <p class="muted" data-testid="read-only">
          Read-only: actions are disabled
        </p>
      ) : (
        <ListActions state={state} name={name} where={where} chosen={chosen} paused={paused} act={act} onPaused={onPaused} />
      )}
      <div class="table-scroll jobs-scroll">
        <table class="jobs">
          <thead>
            <tr>
              {selectable && (
                <th class="check">
                  <input
                    type="checkbox"
                    aria-label="Select all shown"
                    checked={jobs.length > 0 && chosen.size === jobs.length}
                    onChange={(e) => setChosen(e.currentTarget.checked ? new Set(jobs.map((j) => j.id)) : new Set())}
                  />
                </th>
              )}
              <th>id</th>
              <th>name</th>
              <th class="num">tries</th>
              <th>{state === 'pending' || state === 'failed' ? 'runs' : 'updated'}</th>
              <th class="wide">error · payload</th>
              {!readOnly && state === 'dead' && <th aria-label="actions" />}
            </tr>
          </thead>
          <tbody>
            {jobs.map((job) => (
              <tr key={job.id} data-job-id={job.id} class={openJob === job.id ? 'open' : ''} onClick={() => (location.hash = `job=${job.id}`)}>
                {selectable && (
                  <td class="check">
                    <input
                      type="checkbox"
                      aria-label={`Select job ${job.id}`}
                      checked={chosen.has(job.id)}
                      onClick={(e) => e.stopPropagation()}
                      onChange={(e) => {
                        const on = e.currentTarget.checked;
                        setChosen((s) => {
                          const copy = new Set(s);
                          on ? copy.add(job.id) : copy.delete(job.id);
                          return copy;
                        });
                      }}
                    />
                  </td>
                )}
                <td>
                  <a href={`#job=${job.id}`} onClick={(e) => e.stopPropagation()}>
                    {job.id}
                  </a>
                </td>
                <td class="job-name">{job.name}</td>
                <td class="num">{job.attempts}</td>
                <td class="nowrap">
                  <When at={state === 'pending' || state === 'failed' ? job.runAt : job.updatedAt} />
                </td>
                <td class="wide">
                  {job.error &&
                    (job.state === 'completed' ? (
                      // A job that completed after failed attempts: the error is history, not an alarm.
                      <span class="err-earlier" data-testid="earlier-error" title={job.error}>
                        earlier: {excerpt(job.error, 120)}
                      </span>
                    ) : (
                      <span class="err" title={job.error}>
                        {excerpt(job.error, 120)}
                      </span>
                    ))}
                  <code class="payload" title={job.payload}>
                    {excerpt(job.payload, 120)}
                  </code>
                </td>
                {!readOnly && state === 'dead' && (
                  <td>
                    <button
                      type="button"
                      class="small"
                      data-action="retry"
                      onClick={(e) => {
                        e.stopPropagation();
                        void act('Retry job', `Retry job ${job.id} (${job.name})?`, 'Retry', async () => {
                          await api.retry(job.id);
                          return `Job ${job.id} is pending again`;
                        });
                      }}
                    >
                      Retry
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div class="row list-foot">
        <span class="muted">
          {loading ? 'Loading…' : jobs.length === 0 && !next ? 'No jobs here.' : `${count(jobs.length)} shown`}
          {where && ` · scanned ${count(scanned)} rows`}
        </span>
        {next && (
          <button type="button" onClick={() => load(next)} disabled={loading}>
            Load more
          </button>
        )}
      </div>
    </section>
  );
}
