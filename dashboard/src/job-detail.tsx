/**
 * One job in full: payload, result or error, attempts, lease, progress,
 * timestamps and its timeline (transitions, and the durable steps completed
 * and the lines logged between them), with a replay of its path on the statechart.
 * Refetched when the live stream mentions it.
 */
import { Fragment } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, api, errorText } from './api';
import { duration, toMs } from './format';
import { candidateEdges } from './live';
import { JobActions } from './job-actions';
import { MessageForm, PublishedValues } from './job-message';
import { Replay } from './replay';
import { When } from './when';
import { stepsByTransition } from './timeline-steps';
import { LogNote, TimelineExtras, useJobLogs } from './job-logs';
import type { PathHighlight } from './statechart';
import type { GraphEdge, GraphState, JobDetail as Detail, StepRow } from './types';

interface Props {
  id: number;
  /** Bumped whenever a tick mentions this job. */
  touched: number;
  edgesFor(name: string): { edges: GraphEdge[]; states: GraphState[] } | undefined;
  onPath(name: string | undefined, path: PathHighlight | undefined): void;
  onClose(): void;
  /** No actions: a read-only server, or no token yet. */
  readOnly: boolean;
}

function json(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? 'undefined';
}

export function JobDetail({ id, touched, edgesFor, onPath, onClose, readOnly }: Props) {
  const [detail, setDetail] = useState<Detail | undefined>();
  // Bumped after an action here: the job is read again at once, not on the next tick that names it.
  const [acted, setActed] = useState(0);
  const [error, setError] = useState<string | undefined>();
  const [now, setNow] = useState(Date.now());

  useEffect(() => {
    setDetail(undefined);
    setError(undefined);
  }, [id]);

  useEffect(() => {
    let live = true;
    api.job(id).then(
      (d) => {
        if (!live) return;
        setDetail(d);
        setNow(Date.now());
      },
      (e) => live && setError(e instanceof ApiError && e.status === 404 ? `Job ${id} does not exist.` : errorText(e)),
    );
    return () => {
      live = false;
    };
  }, [id, touched, acted]);

  const machine = detail && edgesFor(detail.job.name);
  const finalStates = new Set(machine?.states.filter((s) => s.final).map((s) => s.id));
  const history = detail?.history ?? [];
  const edgeIds = useMemo(() => history.map((h) => (machine ? candidateEdges(machine.edges, h) : [])), [history, machine]);
  const spent = useMemo(
    () =>
      history.map((h, i) => {
        const at = toMs(h.at);
        const next = history[i + 1];
        if (at === undefined) return undefined;
        if (next) return (toMs(next.at) ?? at) - at;
        return finalStates.has(h.to) ? undefined : now - at;
      }),
    [history, now],
  );

  const stepsAfter = useMemo(() => stepsByTransition(history, detail?.steps ?? []), [history, detail]);
  const logs = useJobLogs(id, history, [touched, acted], detail?.job.state === 'processing');

  const showStep = (step: number) => {
    if (!detail) return;
    const states = new Set(history.flatMap((h) => (h.from ? [h.from, h.to] : [h.to])));
    const edges = new Set(edgeIds.flat());
    onPath(detail.job.name, { states, edges, markerState: history[step]?.to, markerEdges: edgeIds[step] });
  };
  useEffect(() => () => onPath(undefined, undefined), []);

  if (error) {
    return (
      <section class="panel" data-testid="job-detail" aria-labelledby="detail-title">
        <DetailHead id={id} onClose={onClose} />
        <p class="inline-error">{error}</p>
      </section>
    );
  }
  if (!detail) {
    return (
      <section class="panel" data-testid="job-detail" aria-labelledby="detail-title">
        <DetailHead id={id} onClose={onClose} />
        <p class="muted">Loading…</p>
      </section>
    );
  }
  const { job } = detail;
  const failure = job.lastError;
  const progress = typeof job.progress === 'number' ? Math.max(0, Math.min(100, job.progress)) : undefined;
  return (
    <section class="panel" data-testid="job-detail" aria-labelledby="detail-title">
      <DetailHead id={id} name={job.name} state={job.state} onClose={onClose} />
      {!readOnly && <JobActions job={job} events={detail.events ?? []} onChanged={() => setActed((n) => n + 1)} onRemoved={onClose} />}
      {!readOnly && job.state === 'waiting-message' && job.waitingFor !== undefined && <MessageForm id={job.id} topic={job.waitingFor} onSent={() => setActed((n) => n + 1)} />}
      <dl class="facts">
        <dt>attempts</dt>
        <dd>
          {job.attempts}
        </dd>
        <dt>priority</dt>
        <dd>{job.priority}</dd>
        <dt>lease owner</dt>
        <dd>{job.leaseOwner ?? '–'}</dd>
        {job.key && (
          <>
            <dt>key</dt>
            <dd>{job.key}</dd>
          </>
        )}
        {job.heldKey && (
          <>
            <dt>{job.heldKey.kind} key</dt>
            <dd>{job.heldKey.key}</dd>
          </>
        )}
        {job.group !== undefined && (
          <>
            <dt>group</dt>
            <dd data-testid="job-group">{job.group}</dd>
          </>
        )}
        {job.parentId !== undefined && (
          <>
            <dt>parent</dt>
            <dd data-testid="job-parent">#{job.parentId}</dd>
          </>
        )}
        {job.children !== undefined && (
          <>
            <dt>children</dt>
            <dd data-testid="job-children">
              {job.children.left} left, {job.children.failed} failed ({job.children.onChildFailure === 'fail' ? 'fails with a child' : 'continues'})
            </dd>
          </>
        )}
        <dt>created</dt>
        <dd><When at={job.createdAt} /></dd>
        <dt>run at</dt>
        <dd><When at={job.runAt} /></dd>
        <dt>updated</dt>
        <dd><When at={job.updatedAt} /></dd>
        {job.lockedUntil != null && (
          <>
            <dt>locked until</dt>
            <dd><When at={job.lockedUntil} /></dd>
          </>
        )}
      </dl>
      {progress !== undefined && (
        <label class="progress">
          <span>progress {Math.round(progress)}%</span>
          <progress max={100} value={progress} />
        </label>
      )}
      {job.progress !== undefined && job.progress !== null && progress === undefined && (
        <>
          <h3>Progress</h3>
          <pre class="code" data-testid="job-progress">{json(job.progress)}</pre>
        </>
      )}
      <PublishedValues values={job.published as Record<string, unknown> | undefined} />
      <h3>Payload</h3>
      <pre class="code">{json(job.payload)}</pre>
      {job.result !== undefined && (
        <>
          <h3>Result</h3>
          <pre class="code">{json(job.result)}</pre>
        </>
      )}
      {failure && (
        <>
          <h3>{job.state === 'completed' ? 'Earlier error' : 'Last error'}</h3>
          <p class="err">
            <strong>{failure.name}</strong>
            {failure.code ? ` (${failure.code})` : ''}: {failure.message}
          </p>
          {failure.stack && <pre class="code stack">{failure.stack}</pre>}
        </>
      )}
      <h3>Timeline</h3>
      <Replay history={history} spent={spent} onStep={showStep} />
      <LogNote logs={logs} />
      <ol class="timeline" data-testid="timeline">
        <TimelineExtras steps={stepsAfter.before} lines={logs.before} Step={StepItem} />
        {history.map((h, i) => (
          <Fragment key={i}>
            <li data-testid="timeline-transition">
              <div>
                <span class="from">{h.from ?? 'enqueued'}</span> → <span class={`pill s-${h.to}`}>{h.to}</span> <code>{h.event}</code>
              </div>
              <div class="muted small-text">
                <When at={h.at} />
                {h.workerId ? ` · ${h.workerId}` : ''}
                {spent[i] !== undefined ? ` · ${duration(spent[i]!)} in ${h.to}` : ''}
                {h.error ? ` · ${h.error.message}` : ''}
              </div>
            </li>
            <TimelineExtras steps={stepsAfter.after[i]!} lines={logs.after[i] ?? []} Step={StepItem} />
          </Fragment>
        ))}
      </ol>
    </section>
  );
}

function StepItem({ step }: { step: StepRow }) {
  return (
    <li class="step" data-testid="timeline-step">
      <div>
        <span class="muted">step {step.seq}</span> <code>{step.name}</code>
        {step.wakeAt != null ? <span class="muted"> · sleep until <When at={step.wakeAt} /></span> : step.result !== undefined ? <span class="muted"> → {JSON.stringify(step.result)}</span> : ''}
      </div>
      <div class="muted small-text">
        <When at={step.at} /> · attempt {step.attempt}
      </div>
    </li>
  );
}

function DetailHead({ id, name, state, onClose }: { id: number; name?: string; state?: string; onClose(): void }) {
  return (
    <div class="panel-head">
      <h2 id="detail-title">
        Job {id} {name && <span class="muted">{name}</span>} {state && <span class={`pill s-${state}`}>{state}</span>}
      </h2>
      <button type="button" class="ghost" onClick={onClose} aria-label="Close job">
        ✕
      </button>
    </div>
  );
}
