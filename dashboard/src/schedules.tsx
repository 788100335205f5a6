/** The schedules stored in the queue (cron expressions and intervals), with their next and last runs: refreshed every 5 s while the tab is visible. */
import { useState } from 'preact/hooks';
import { api, errorText } from './api';
import { absolute, duration, relative } from './format';

/** An interval as one would write it: `5 min`, `1 h`, `30 s` (else the general form). */
function interval(ms: number): string {
  for (const [unit, name] of [[86_400_000, 'd'], [3_600_000, 'h'], [60_000, 'min'], [1000, 's']] as const) if (ms % unit === 0) return `${ms / unit} ${name}`;
  return duration(ms);
}
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
                <th>repeats</th>
                <th>next run</th>
                <th>last run</th>
              </tr>
            </thead>
            <tbody>
              {data.map((s) => (
                <tr key={s.id} data-schedule={s.id}>
                  <td class="job-name" data-label="name">
                    {s.name}
                    {s.id !== s.name && <span class="muted schedule-id"> {s.id}</span>}
                  </td>
                  <td data-label="repeats">
                    {s.cron !== null ? (
                      <>
                        <code>{s.cron}</code> <span class="muted">{s.tz ?? 'local time'}</span>
                      </>
                    ) : (
                      <code>every {interval(s.every!)}</code>
                    )}
                    {s.limit !== null && <span class="muted" data-schedule-runs> {s.count} of {s.limit} runs</span>}
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
