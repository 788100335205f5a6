/** The cron schedules stored in the queue, with their next and last runs: refreshed every 5 s while the tab is visible. */
import { useState } from 'preact/hooks';
import { api, errorText } from './api';
import { absolute, relative } from './format';
import type { Schedule } from './types';
import { useVisibleInterval } from './visible';

export function Schedules() {
  const [data, setData] = useState<Schedule[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  useVisibleInterval(5000, () =>
    api.schedules().then(
      (r) => {
        setData(r.schedules);
        setError(undefined);
      },
      (e) => setError(errorText(e)),
    ),
  );
  if (!data) return <p class="muted">{error ?? 'Loading schedules…'}</p>;
  const now = Date.now();
  return (
    <>
      {error && <p class="inline-error">{error}</p>}
      {data.length === 0 ? (
        <p class="muted">No cron schedules (defineJob schedule, queue.schedule).</p>
      ) : (
        <div class="table-scroll">
          <table class="schedules stacks" data-testid="schedules">
            <thead>
              <tr>
                <th>name</th>
                <th>cron</th>
                <th>next run</th>
                <th>last run</th>
              </tr>
            </thead>
            <tbody>
              {data.map((s) => (
                <tr key={s.name} data-schedule={s.name}>
                  <td class="job-name" data-label="name">{s.name}</td>
                  <td data-label="cron">
                    <code>{s.cron}</code> <span class="muted">{s.tz ?? 'local time'}</span>
                  </td>
                  <td class="nowrap" title={absolute(s.nextRunAt)} data-next-run={s.nextRunAt ?? ''} data-label="next run">
                    {s.nextRunAt === null ? 'never' : relative(s.nextRunAt, now)}
                  </td>
                  <td class="nowrap" title={absolute(s.lastRunAt)} data-label="last run">
                    {relative(s.lastRunAt, now)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
