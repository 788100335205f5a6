/**
 * The job list's bulk actions: cancel the selected pending jobs, retry every
 * matching dead job, pause or resume the filtered name. Each goes through
 * `act`, which asks first, reports the outcome and reloads the list.
 */
import { api } from './api';
import type { Paused } from './types';

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
  return (
    <div class="row actions">
      {state === 'pending' && (
        <button
          type="button"
          data-action="cancel-selected"
          disabled={chosen.size === 0}
          onClick={() =>
            act('Cancel jobs', `Cancel ${chosen.size} pending job${chosen.size === 1 ? '' : 's'}?`, 'Cancel jobs', async () => {
              const r = await api.cancelMany([...chosen]);
              return `Cancelled ${r.cancelled.length}${r.skipped.length ? `, skipped ${r.skipped.length}` : ''}`;
            })
          }
        >
          Cancel selected{chosen.size ? ` (${chosen.size})` : ''}
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
            onClick={() =>
              act('Resume', `Resume claiming "${name}" jobs?`, 'Resume', async () => {
                const r = await api.resume(name);
                onPaused(r.paused);
                return `Resumed ${name}`;
              })
            }
          >
            Resume {name}
          </button>
        ) : (
          <button
            type="button"
            data-action="pause"
            onClick={() =>
              act('Pause', `Pause "${name}"? Workers stop claiming its jobs until it is resumed.`, 'Pause', async () => {
                const r = await api.pause(name);
                onPaused(r.paused);
                return `Paused ${name}`;
              })
            }
          >
            Pause {name}
          </button>
        ))}
    </div>
  );
}
