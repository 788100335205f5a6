/** Who holds leases right now, and on what: refreshed every 2 s while the tab is visible. */
import { useState } from 'preact/hooks';
import { api, errorText } from './api';
import { duration, relative } from './format';
import type { Workers as WorkersData } from './types';
import { useVisibleInterval } from './visible';

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
        <p class="muted">No worker has claimed a job in the last minute.</p>
      ) : (
        <div class="table-scroll">
          <table class="workers">
            <thead>
              <tr>
                <th>owner</th>
                <th>last seen</th>
                <th>running</th>
              </tr>
            </thead>
            <tbody>
              {data.workers.map((w) => (
                <tr key={w.owner}>
                  <td>
                    <code>{w.owner}</code>
                  </td>
                  <td class="nowrap">{relative(w.lastSeen, data.at)}</td>
                  <td>
                    {w.running.length === 0 ? (
                      <span class="muted">idle</span>
                    ) : (
                      <ul class="running">
                        {w.running.map((r) => (
                          <li key={r.id}>
                            <a href={`#job=${r.id}`}>
                              {r.name} #{r.id}
                            </a>{' '}
                            <span class="muted">running for {duration(Math.max(0, data.at - r.since))}</span>
                            {r.progress !== null && <progress max={100} value={r.progress} aria-label={`job ${r.id} progress`} />}
                          </li>
                        ))}
                      </ul>
                    )}
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
