/**
 * The actions on one job, in its detail: a button for each event its machine
 * accepts now (read off the machine by the server: Retry, Cancel, Run again,
 * Run now, or a machine of one's own's, such as `job.approve`), and Delete
 * for a job no worker holds. Each asks first and reports how it went.
 */
import { api, errorText } from './api';
import { confirmAction, toast } from './confirm';
import type { JobFull } from './types';

/** What the base machine's caller events are called on a button; a custom event shows its own name. */
const LABELS: Record<string, string> = {
  'job.retry': 'Retry',
  'job.cancel': 'Cancel',
  'job.rerun': 'Run again',
  'job.promote': 'Run now',
};

const WHAT: Record<string, string> = {
  'job.retry': 'back to pending with a fresh set of attempts',
  'job.cancel': 'cancelled; a running handler sees its signal abort',
  'job.rerun': 'run again with a fresh set of attempts',
  'job.promote': 'due now instead of at its time',
};

interface Props {
  job: Pick<JobFull, 'id' | 'name' | 'state' | 'leaseOwner'>;
  events: readonly string[];
  /** After an event was sent: the detail reloads. */
  onChanged(): void;
  /** After the job was deleted: the detail closes. */
  onRemoved(): void;
}

export function JobActions({ job, events, onChanged, onRemoved }: Props) {
  const run = async (title: string, body: string, ok: string, action: () => Promise<string>, after: () => void) => {
    if (!(await confirmAction(title, body, ok))) return;
    try {
      toast(await action());
      after();
    } catch (e) {
      toast(errorText(e), 'error');
      onChanged();
    }
  };
  const label = (type: string) => LABELS[type] ?? type;
  return (
    <div class="row actions" data-testid="job-actions">
      {events.map((type) => (
        <button
          key={type}
          type="button"
          data-event={type}
          onClick={() =>
            void run(
              label(type),
              `${label(type)}: job ${job.id} (${job.name}) ${WHAT[type] ?? `gets the event ${type}`}?`,
              label(type),
              async () => {
                await api.send(job.id, type);
                return `Job ${job.id}: ${label(type)}`;
              },
              onChanged,
            )
          }
        >
          {label(type)}
        </button>
      ))}
      {!job.leaseOwner && (
        <button
          type="button"
          class="danger"
          data-action="delete"
          onClick={() =>
            void run(
              'Delete job',
              `Delete job ${job.id} (${job.name}) with its history and steps? This cannot be undone.`,
              'Delete',
              async () => {
                await api.remove(job.id);
                return `Deleted job ${job.id}`;
              },
              onRemoved,
            )
          }
        >
          Delete
        </button>
      )}
    </div>
  );
}
