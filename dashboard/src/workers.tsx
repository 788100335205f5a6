/**
 * Who works on the queue: each process with its host, pid, uptime and slots
 * (what each busy slot runs, the idle ones as a count), and lease owners
 * with no registry row by their owner id. Refreshed every 2 s while the tab
 * is visible.
 */
import { useState } from 'preact/hooks';
import { api, errorText } from './api';
import { duration, progressLine, relative } from './format';
import type { Worker, WorkerProcess, Workers as WorkersData } from './types';
import { useVisibleInterval } from './visible';

type Running = Worker['running'][number];

/** Slot marks drawn at most: a larger pool is told in numbers only. */
const MAX_MARKS = 64;

export function Workers() {
  const [data, setData] = useState<WorkersData | undefined>();
  const [error, setError] = useState<string | undefined>();
  useVisibleInterval(2000, () =>
    api.workers().then(
      (w) => {
        setData(w);
        setError(undefined);
      },
      (e) => setError(errorText(e)),
    ),
  );
  if (!data) return <p class="muted">{error ?? 'Loading workers…'}</p>;
  return (
    <>
      {error && <p class="inline-error">{error}</p>}
      {data.workers.length === 0 ? (
        <p class="muted">No process runs workers, and none has claimed a job in the last minute.</p>
      ) : (
        <ul class="processes" data-testid="workers">
          {data.workers.map((w) =>
            w.process ? <ProcessItem key={w.owner} worker={w} process={w.process} at={data.at} /> : <OwnerItem key={w.owner} worker={w} at={data.at} />,
          )}
        </ul>
      )}
    </>
  );
}

function ProcessItem({ worker, process: p, at }: { worker: Worker; process: WorkerProcess; at: number }) {
  const busy = worker.busy ?? Math.min(worker.running.length, p.concurrency);
  const inSlots = worker.running.slice(0, busy);
  const ahead = worker.running.slice(busy);
  const idle = p.concurrency - busy;
  // A worker pool of its process (createQueue pools): its lease owner id ends in /<pool>.
  const slash = worker.owner.lastIndexOf('/');
  const pool = slash > 0 ? worker.owner.slice(slash + 1) : undefined;
  return (
    <li class="process" data-owner={worker.owner} title={worker.owner}>
      <div class="process-head">
        <strong class="process-host" data-testid="worker-host">
          {p.host}
        </strong>
        <span class="muted nowrap">pid {p.pid}</span>
        {pool !== undefined && (
          <span class="nowrap" data-testid="worker-pool">
            pool {pool}
          </span>
        )}
        <span class="muted nowrap" data-testid="worker-uptime">
          up {duration(Math.max(0, at - p.startedAt))}
        </span>
      </div>
      <div class="process-meta muted">
        <span class="nowrap" data-testid="worker-slots">
          {busy} of {p.concurrency} {p.concurrency === 1 ? 'slot' : 'slots'} busy
        </span>
        {p.names.length > 0 && <span class="process-names">{p.names.join(', ')}</span>}
        <span class="nowrap">litejobs {p.version}</span>
        <span class="nowrap">heartbeat {relative(p.seenAt, at)}</span>
      </div>
      {p.concurrency <= MAX_MARKS && (
        <div class="slot-marks" aria-hidden="true">
          {Array.from({ length: p.concurrency }, (_, i) => (
            <span key={i} class={i < busy ? 'slot-mark busy' : 'slot-mark'} />
          ))}
        </div>
      )}
      {inSlots.length > 0 && (
        <ul class="running slots">
          {inSlots.map((r) => (
            <RunningItem key={r.id} job={r} at={at} />
          ))}
        </ul>
      )}
      {idle > 0 && (
        <p class="slot-idle muted" data-testid="worker-idle">
          {busy === 0 ? `all ${idle} idle` : `${idle} idle`}
        </p>
      )}
      {ahead.length > 0 && (
        <details class="claimed-ahead">
          <summary class="muted">{ahead.length} claimed ahead, waiting for a slot</summary>
          <ul class="running">
            {ahead.map((r) => (
              <li key={r.id}>
                <a href={`#job=${r.id}`}>
                  {r.name} #{r.id}
                </a>{' '}
                <span class="muted">claimed {relative(r.since, at)}</span>
              </li>
            ))}
          </ul>
        </details>
      )}
    </li>
  );
}

/** A lease owner with no registry row: an older litejobs, or a process gone before its leases ran out. */
function OwnerItem({ worker: w, at }: { worker: Worker; at: number }) {
  return (
    <li class="process" data-owner={w.owner}>
      <div class="process-head">
        <code class="process-owner">{w.owner}</code>
        <span class="muted nowrap">last seen {relative(w.lastSeen, at)}</span>
      </div>
      <div class="process-meta muted">no heartbeat: slots and uptime unknown</div>
      {w.running.length === 0 ? (
        <p class="slot-idle muted">idle</p>
      ) : (
        <ul class="running slots">
          {w.running.map((r) => (
            <RunningItem key={r.id} job={r} at={at} />
          ))}
        </ul>
      )}
    </li>
  );
}

function RunningItem({ job: r, at }: { job: Running; at: number }) {
  return (
    <li data-job-id={r.id}>
      <a href={`#job=${r.id}`} class="slot-job">
        {r.name} #{r.id}
      </a>{' '}
      <span class="muted nowrap">running for {duration(Math.max(0, at - r.since))}</span>
      {typeof r.progress === 'number' && <progress max={100} value={Math.max(0, Math.min(100, r.progress))} aria-label={`job ${r.id} progress`} />}
      {r.progress !== null && typeof r.progress !== 'number' && <code class="progress-value">{progressLine(r.progress)}</code>}
    </li>
  );
}
