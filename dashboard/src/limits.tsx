/**
 * Concurrency groups and limits (`GET /v1/limits`): the limited job names
 * with their running jobs and rate-limit tokens, and the busiest groups;
 * refreshed every 5 s while the tab is visible.
 */
import { useState } from 'preact/hooks';
import { api, errorText } from './api';
import { absolute, count, duration, relative } from './format';
import type { Limits as LimitsData, NameLimit } from './types';
import { useVisibleInterval } from './visible';
import { LimitEditor } from './limit-editor';

/** Groups drawn at most: the server sends up to 200, busiest first. */
const GROUPS_SHOWN = 25;

const orDash = (n: number | null) => (n === null ? '–' : count(n));

/** A rate window as it was most likely written: 1 h, 1 min, 10 s; anything else as a duration. */
function period(ms: number): string {
  for (const [unit, name] of [[86_400_000, 'd'], [3_600_000, 'h'], [60_000, 'min'], [1000, 's']] as const) {
    if (ms >= unit && ms % unit === 0) return `${ms / unit} ${name}`;
  }
  return duration(ms);
}

function rateText(limit: NameLimit['rateLimit']): string {
  if (limit === null) return '–';
  return `${limit.max} per ${period(limit.perMs)}${limit.perGroup ? ' per group' : ''}`;
}

function PausedUntil({ at, now }: { at: string | null; now: number }) {
  return (
    <td class="nowrap" title={absolute(at)} data-paused-until={at ?? ''} data-label="paused">
      {at === null ? '–' : `ends ${relative(at, now)}`}
    </td>
  );
}

/** The names `PUT /v1/names/:name/limits` takes (NAME_PATTERN of the HTTP API): others are edited from the library or the CLI. */
const ROUTE_NAME = /^[A-Za-z0-9._:-]{1,128}$/;

/** Limits for a job name not listed yet (its definitions set none): its name, then the editor. */
function OtherName({ known, onDone }: { known: string[]; onDone: (message: string) => void }) {
  const [name, setName] = useState('');
  const [open, setOpen] = useState<string | undefined>();
  const [refused, setRefused] = useState<string | undefined>();
  const none: NameLimit = { name: open ?? '', groupConcurrency: null, globalConcurrency: null, rateLimit: null, running: 0, tokensLeft: null, pausedUntil: null };
  return (
    <div class="limit-other">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const n = name.trim();
          if (!ROUTE_NAME.test(n)) return setRefused(`a job name the API takes: 1 to 128 letters, digits, ".", "_", ":" or "-"`);
          setRefused(undefined);
          if (!known.includes(n)) setOpen(n);
        }}
      >
        <label>
          Limit another job name <input name="other-name" size={16} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>{' '}
        <button type="submit">Edit limits</button>
        {refused && <span class="inline-error"> {refused}</span>}
      </form>
      {open !== undefined && (
        <LimitEditor
          key={open}
          limit={none}
          onDone={(message) => {
            setOpen(undefined);
            setName('');
            onDone(message);
          }}
        />
      )}
    </div>
  );
}

export function Limits({ readOnly = true }: { readOnly?: boolean }) {
  const [data, setData] = useState<LimitsData | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [editing, setEditing] = useState<string | undefined>();
  const [done, setDone] = useState<string | undefined>();
  const load = () =>
    api.limits().then(
      (r) => {
        setData(r);
        setError(undefined);
      },
      (e) => setError(errorText(e)),
    );
  useVisibleInterval(5000, load);
  if (!data) return <p class="muted">{error ?? 'Loading limits…'}</p>;
  const now = Date.now();
  const groups = data.groups.slice(0, GROUPS_SHOWN);
  return (
    <>
      {error && <p class="inline-error">{error}</p>}
      {done && (
        <p class="muted" role="status" data-testid="limits-done">
          {done}
        </p>
      )}
      {data.names.length === 0 ? (
        <p class="muted">No limited job names (defineJob groupConcurrency, globalConcurrency, rateLimit).</p>
      ) : (
        <div class="table-scroll">
          <table class="limits stacks" data-testid="limit-names">
            <thead>
              <tr>
                <th>name</th>
                <th>group conc.</th>
                <th>global conc.</th>
                <th>rate</th>
                <th>running</th>
                <th>tokens left</th>
                <th>paused</th>
                {!readOnly && <th aria-label="actions" />}
              </tr>
            </thead>
            <tbody>
              {data.names.map((n) => [
                <tr key={n.name} data-name={n.name}>
                  <td class="job-name" data-label="name">
                    {n.name}
                    {n.changed && (
                      <span class="muted small-text" title="changed while the queue runs (setLimits)" data-changed>
                        {' '}
                        (changed)
                      </span>
                    )}
                  </td>
                  <td data-label="group conc.">{orDash(n.groupConcurrency)}</td>
                  <td data-label="global conc.">{orDash(n.globalConcurrency)}</td>
                  <td class="nowrap" data-label="rate">{rateText(n.rateLimit)}</td>
                  <td data-running data-label="running">{count(n.running)}</td>
                  <td data-label="tokens left">{orDash(n.tokensLeft)}</td>
                  <PausedUntil at={n.pausedUntil} now={now} />
                  {!readOnly && (
                    <td data-label="">
                      {ROUTE_NAME.test(n.name) && <button type="button" aria-expanded={editing === n.name} onClick={() => setEditing(editing === n.name ? undefined : n.name)}>
                        {editing === n.name ? 'Close' : 'Edit'}
                      </button>}
                    </td>
                  )}
                </tr>,
                editing === n.name && (
                  <tr key={`${n.name}:edit`} class="limit-edit-row">
                    <td colSpan={8}>
                      <LimitEditor
                        limit={n}
                        onDone={(message) => {
                          setEditing(undefined);
                          setDone(message);
                          void load();
                        }}
                      />
                    </td>
                  </tr>
                ),
              ])}
            </tbody>
          </table>
        </div>
      )}
      {!readOnly && <OtherName known={data.names.map((n) => n.name)} onDone={(message) => {
        setDone(message);
        void load();
      }} />}
      <h3>Busiest groups</h3>
      {groups.length === 0 ? (
        <p class="muted">No group has jobs pending or running.</p>
      ) : (
        <div class="table-scroll">
          <table class="limits stacks" data-testid="limit-groups">
            <thead>
              <tr>
                <th>group</th>
                <th>pending</th>
                <th>running</th>
                <th title="The group's own setting; – : the job definitions' groupConcurrency">concurrency</th>
                <th>paused</th>
              </tr>
            </thead>
            <tbody>
              {groups.map((g) => (
                <tr key={g.group} data-group={g.group}>
                  <td data-label="group">
                    <code>{g.group}</code>
                  </td>
                  <td data-pending data-label="pending">{count(g.pending)}</td>
                  <td data-running data-label="running">{count(g.running)}</td>
                  <td data-concurrency data-label="concurrency">{g.concurrency === null ? '–' : count(g.concurrency)}</td>
                  <PausedUntil at={g.pausedUntil} now={now} />
                </tr>
              ))}
            </tbody>
          </table>
          {data.groups.length > groups.length && <p class="muted small-text">and {data.groups.length - groups.length} more groups (litejobs limits --json lists them)</p>}
        </div>
      )}
    </>
  );
}
