/**
 * The live event stream, read with fetch rather than EventSource so that it
 * can carry the bearer header. It parses Server-Sent Events itself, resumes
 * with `Last-Event-ID` after a drop (the server replays what was missed), backs
 * off between failed attempts, and lets go of the connection while the tab is
 * hidden.
 */
import { ApiError, apiUrl, authHeaders } from './api';
import type { Tick } from './types';

export type Connection = 'live' | 'reconnecting' | 'paused';

export interface StreamHandlers {
  onTick(tick: Tick): void;
  /** The server could not replay from our cursor: refetch everything. */
  onReset(): void;
  onConnection(state: Connection): void;
  onError?(error: ApiError): void;
}

const MIN_BACKOFF = 500;
const MAX_BACKOFF = 15_000;

interface SseEvent {
  event: string;
  data: string;
  id: string | undefined;
}

/** Splits the byte stream into events (the SSE line protocol, comments ignored). */
async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let event = 'message';
  let data: string[] = [];
  let id: string | undefined;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    const lines = buffer.split(/\r\n|\r|\n/);
    buffer = lines.pop() ?? '';
    for (const line of lines) {
      if (line === '') {
        if (data.length > 0) yield { event, data: data.join('\n'), id };
        event = 'message';
        data = [];
        id = undefined;
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
      else if (field === 'id') id = value;
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Opens the stream and keeps it open until the returned function is called. */
export function openEventStream(handlers: StreamHandlers): () => void {
  const stopped = new AbortController();
  let lastId: string | undefined;
  let attempt: AbortController | undefined;
  let wake: (() => void) | undefined;

  const onVisibility = () => {
    if (document.hidden) attempt?.abort();
    else wake?.();
  };
  document.addEventListener('visibilitychange', onVisibility);

  const untilVisible = () =>
    new Promise<void>((resolve) => {
      wake = resolve;
      stopped.signal.addEventListener('abort', () => resolve());
    });

  const run = async () => {
    let backoff = 0;
    while (!stopped.signal.aborted) {
      if (document.hidden) {
        handlers.onConnection('paused');
        await untilVisible();
        continue;
      }
      attempt = new AbortController();
      const onStop = () => attempt?.abort();
      stopped.signal.addEventListener('abort', onStop);
      try {
        const headers: Record<string, string> = { accept: 'text/event-stream', ...authHeaders() };
        if (lastId !== undefined) headers['last-event-id'] = lastId;
        const res = await fetch(apiUrl('/v1/dashboard/events'), { headers, signal: attempt.signal, cache: 'no-store' });
        if (!res.ok || !res.body) throw new ApiError(res.status, `HTTP_${res.status}`, `event stream: ${res.status} ${res.statusText}`);
        for await (const message of readEvents(res.body)) {
          if (message.id !== undefined) lastId = message.id;
          if (message.event === 'reset') {
            lastId = undefined;
            handlers.onReset();
          } else if (message.event === 'tick') {
            backoff = 0;
            handlers.onConnection('live');
            handlers.onTick(JSON.parse(message.data) as Tick);
          }
        }
      } catch (error) {
        if (error instanceof ApiError) handlers.onError?.(error);
        // an abort (hidden tab, stop) or a dropped connection: go round again
      } finally {
        stopped.signal.removeEventListener('abort', onStop);
      }
      if (stopped.signal.aborted) break;
      if (document.hidden) continue;
      handlers.onConnection('reconnecting');
      backoff = Math.min(MAX_BACKOFF, backoff === 0 ? MIN_BACKOFF : backoff * 2);
      await sleep(backoff * (0.75 + Math.random() * 0.5), stopped.signal);
    }
  };
  void run();

  return () => {
    document.removeEventListener('visibilitychange', onVisibility);
    stopped.abort();
  };
}
