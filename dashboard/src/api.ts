/**
 * Calls to the dashboard's JSON API: the mount prefix comes from the page's
 * `<meta name="litejobs-base">`, the bearer token from sessionStorage (it
 * lasts as long as the tab), and every error body becomes an `ApiError`.
 */
import type { Counts, DashboardConfig, JobDetail, JobLogPage, JobPage, Limits, Overview, Schedule, Series, Workers, NameLimit } from './types';

const TOKEN_KEY = 'litejobs-token';

export function basePath(): string {
  const content = document.querySelector<HTMLMetaElement>('meta[name="litejobs-base"]')?.content ?? '';
  // An unserved copy of index.html still has the placeholder: treat it as the root.
  return content.includes('%') ? '' : content.replace(/\/+$/, '');
}

export function getToken(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}
export function setToken(token: string | null): void {
  if (token === null) sessionStorage.removeItem(TOKEN_KEY);
  else sessionStorage.setItem(TOKEN_KEY, token);
}

export function authHeaders(): Record<string, string> {
  const token = getToken();
  return token ? { authorization: `Bearer ${token}` } : {};
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function apiUrl(path: string, query: Record<string, string | number | undefined> = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(key, String(value));
  const search = params.toString();
  return `${basePath()}${path}${search ? `?${search}` : ''}`;
}

async function request<T>(method: string, url: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...authHeaders() };
  // The server takes actions as JSON only (a cross-site form or text/plain POST cannot pass for one).
  if (method !== 'GET' && body === undefined) body = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  const init: RequestInit = { method, headers };
  if (body !== undefined) init.body = JSON.stringify(body);
  if (signal) init.signal = signal;
  const res = await fetch(url, init);
  const text = await res.text();
  let data: unknown = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    // a proxy's HTML error page: fall through with the status line
  }
  if (!res.ok) {
    const error = (data as { error?: { code?: string; message?: string } } | null)?.error;
    throw new ApiError(res.status, error?.code ?? `HTTP_${res.status}`, error?.message ?? `${res.status} ${res.statusText}`);
  }
  return data as T;
}

export const api = {
  config: () => request<DashboardConfig>('GET', apiUrl('/v1/dashboard')),
  counts: () => request<Counts>('GET', apiUrl('/v1/dashboard/counts')),
  series: () => request<Series>('GET', apiUrl('/v1/dashboard/series')),
  workers: () => request<Workers>('GET', apiUrl('/v1/dashboard/workers')),
  overview: () => request<Overview>('GET', apiUrl('/v1/dashboard/overview')),
  schedules: () => request<{ schedules: Schedule[] }>('GET', apiUrl('/v1/schedules')),
  limits: () => request<Limits>('GET', apiUrl('/v1/limits')),
  /** A job name's limits changed while the queue runs; the name's limits as they then stand. */
  setLimits: (name: string, changes: { rateLimit?: { max: number; per: number | string; perGroup: boolean } | null; globalConcurrency?: number | null; groupConcurrency?: number | null }) =>
    request<NameLimit>('PUT', apiUrl(`/v1/names/${encodeURIComponent(name)}/limits`), changes),
  resetLimits: (name: string) => request<NameLimit>('DELETE', apiUrl(`/v1/names/${encodeURIComponent(name)}/limits`)),
  jobs: (query: { state: string; name?: string; where?: string; limit?: number; cursor?: string }, signal?: AbortSignal) =>
    request<JobPage>('GET', apiUrl('/v1/dashboard/jobs', query), undefined, signal),
  job: (id: number) => request<JobDetail>('GET', apiUrl(`/v1/jobs/${id}`)),
  logs: (id: number, after?: number) => request<JobLogPage>('GET', apiUrl(`/v1/jobs/${id}/logs`, { after })),
  retry: (id: number) => request<{ job: unknown }>('POST', apiUrl(`/v1/jobs/${id}/retry`)),
  retryAll: (body: { name?: string; where?: string }) => request<{ retried: number }>('POST', apiUrl('/v1/jobs/retry'), body),
  cancelMany: (ids: number[]) =>
    request<{ cancelled: number[]; skipped: { id: number; code: string; message: string }[] }>('POST', apiUrl('/v1/jobs/cancel'), { ids }),
  retryMany: (ids: number[]) =>
    request<{ retried: number; skipped: { id: number; code: string; message: string }[] }>('POST', apiUrl('/v1/jobs/retry'), { ids }),
  removeMany: (ids: number[]) =>
    request<{ removed: number[]; skipped: { id: number; code: string; message: string }[] }>('POST', apiUrl('/v1/jobs/delete'), { ids }),
  remove: (id: number) => request<null>('DELETE', apiUrl(`/v1/jobs/${id}`)),
  /** Any event the job's machine accepts now (`events` in the job's detail). */
  send: (id: number, type: string) => request<{ job: unknown }>('POST', apiUrl(`/v1/jobs/${id}/events`), { type }),
  signal: (id: number, topic: string, data: unknown) => request<{ id: number; woke: boolean }>('POST', apiUrl(`/v1/jobs/${id}/signals/${encodeURIComponent(topic)}`), data),
  /** The name's own pause, as the server answers it: `pausedWith()` folds it into the page's Paused. */
  pause: (name: string) => request<{ name: string; paused: boolean }>('POST', apiUrl(`/v1/names/${encodeURIComponent(name)}/pause`)),
  resume: (name: string) => request<{ name: string; paused: boolean }>('POST', apiUrl(`/v1/names/${encodeURIComponent(name)}/resume`)),
};

/** The text to show for a failed call. */
export function errorText(error: unknown): string {
  if (error instanceof ApiError) return error.code === 'LJ_ERR_READ_ONLY' ? 'read-only: this server does not allow actions' : error.message;
  return error instanceof Error ? error.message : String(error);
}
