/** Pausing or resuming a job name from the page (the job list's buttons, the overview's): one question, one call, the pause state after it. */
import { api } from './api';
import { pausedWith } from './live';
import type { Paused } from './types';

/** The confirmation to ask before pausing (or resuming) `name`: its verb, and what it does. */
export function pauseQuestion(name: string, isPaused: boolean): { verb: 'Pause' | 'Resume'; body: string } {
  return isPaused ? { verb: 'Resume', body: `Resume claiming "${name}" jobs?` } : { verb: 'Pause', body: `Pause "${name}"? Workers stop claiming its jobs until it is resumed.` };
}

/** Pauses or resumes `name` (rejects as the API does); the page's pause state as the server now has it, and the toast's text. */
export async function togglePause(name: string, isPaused: boolean, paused: Paused): Promise<{ paused: Paused; done: string }> {
  const r = isPaused ? await api.resume(name) : await api.pause(name);
  return { paused: pausedWith(paused, r.name, r.paused), done: `${isPaused ? 'Resumed' : 'Paused'} ${name}` };
}
