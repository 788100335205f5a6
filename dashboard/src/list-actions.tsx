/**
 * The job list's bulk actions: cancel the selected jobs that have not
 * finished, retry the selected dead jobs or every matching one, delete the
 * selected jobs, pause or resume the filtered name. Each goes through `act`,
 * which asks first, reports the outcome and reloads the list.
 */
import { api } from './api';
import { pauseQuestion, togglePause } from './pause-name';
import type { Paused } from './types';

/** States a job can be cancelled from (the base machine's job.cancel edges). */
const CANCELLABLE = ['pending', 'failed', 'sleeping', 'waiting-message', 'waiting-children'];

export type Act = (title: string, body: string, ok: string, run: () => Promise<string>) => Promise<void>;

interface Props {
  state: string;
  /** The name filter ('' for every name). */
  name: string;
  where: string;
  chosen: Set<number>;
  paused: Paused;
  act: Act;
  onPaused(paused: Paused): void;
}

export function ListActions({ state, name, where, chosen, paused, act, onPaused }: Props) {
  const filterText = [name && `name ${name}`, where && `where ${where}`].filter(Boolean).join(', ');
  const isPaused = paused.all || (name !== '' && paused.names.includes(name));
  const some = `${chosen.size} ${state} job${chosen.size === 1 ? '' : 's'}`;
  const skipped = (n: number) => (n ? `, skipped ${n}` : '');
  const togglePauseAct = (resume: boolean) => {
    const { verb, body } = pauseQuestion(name, resume);
    return act(verb, body, verb, async () => {
      const after = await togglePause(name, resume, paused);
      onPaused(after.paused);
      return after.done;
    });
  };
  return (
    <div class="row actions">
      {CANCELLABLE.includes(state) && (
        <button
          type="button"
          data-action="cancel-selected"
          disabled={chosen.size === 0}
          onClick={() =>
            act('Cancel jobs', `Cancel ${some}?`, 'Cancel jobs', async () => {
              const r = await api.cancelMany([...chosen]);
              return `Cancelled ${r.cancelled.length}${skipped(r.skipped.length)}`;
            })
          }
        >
          Cancel selected{chosen.size ? ` (${chosen.size})` : ''}
        </button>
      )}
      {state === 'dead' && (
        <button
          type="button"
          data-action="retry-selected"
          disabled={chosen.size === 0}
          onClick={() =>
            act('Retry jobs', `Retry ${some} with a fresh set of attempts?`, 'Retry jobs', async () => {
              const r = await api.retryMany([...chosen]);
              return `Retried ${r.retried}${skipped(r.skipped.length)}`;
            })
          }
        >
          Retry selected{chosen.size ? ` (${chosen.size})` : ''}
        </button>
      )}
      {state !== 'processing' && (
        <button
          type="button"
          class="danger"
          data-action="delete-selected"
          disabled={chosen.size === 0}
          onClick={() =>
            act('Delete jobs', `Delete ${some} with their history and steps? This cannot be undone.`, 'Delete jobs', async () => {
              const r = await api.removeMany([...chosen]);
              return `Deleted ${r.removed.length}${skipped(r.skipped.length)}`;
            })
          }
        >
          Delete selected{chosen.size ? ` (${chosen.size})` : ''}
        </button>
      )}
      {state === 'dead' && (
        <button
          type="button"
          data-action="retry-all"
          onClick={() =>
            act('Retry dead jobs', `Retry every dead job${filterText ? ` matching ${filterText}` : ''}?`, 'Retry all', async () => {
              const r = await api.retryAll({ ...(name && { name }), ...(where && { where }) });
              return `Retried ${r.retried} job${r.retried === 1 ? '' : 's'}`;
            })
          }
        >
          Retry all matching
        </button>
      )}
      {name &&
        (isPaused ? (
          <button
            type="button"
            data-action="resume"
            onClick={() => togglePauseAct(true)}
          >
            Resume {name}
          </button>
        ) : (
          <button
            type="button"
            data-action="pause"
            onClick={() => togglePauseAct(false)}
          >
            Pause {name}
          </button>
        ))}
    </div>
  );
}
