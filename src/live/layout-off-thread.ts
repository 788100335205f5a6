/**
 * A chart's layouts computed in a thread of its own, within a time budget.
 * Layouts that take longer, or fail, are null: the page then lists the
 * machine's states instead of drawing them, and the server stays responsive
 * (elk blocks the thread it runs on, for seconds on some machine shapes).
 */
import { siblingModule, startModuleWorker } from '../lib/module-worker.js';
import type { MachineGraph } from '../diagram/machine-graph.js';
import type { DiagramLayout, LayoutOptions } from '../diagram/svg-layout.js';
import type { LayoutRequest } from './layout-thread.js';

/** Far above the ~100 ms a usual machine takes, on a busy machine too. */
export const LAYOUT_BUDGET_MS = 10_000;

export type Layouts = { RIGHT: DiagramLayout; DOWN: DiagramLayout };
export type LayoutOutcome = { layouts: Layouts } | { layouts: null; reason: string };

/**
 * Layouts made in this process, by graph and options. A layout is a function
 * of those alone (whatever budget it was made under), and a chart costs a
 * thread, elk's loading and ~0.1–1 s of CPU, which a process that starts its
 * server more than once (a host restarting it, a test suite) would pay each
 * time. Outcomes without a layout are not kept: the next start tries again.
 */
const made = new Map<string, Layouts>();
/** Layouts being made, by graph, options and budget: two charts asking at once share one thread. */
const making = new Map<string, Promise<LayoutOutcome>>();
const MADE_MAX = 64;

export function layoutOffThread(graph: MachineGraph, options: LayoutOptions, budgetMs = LAYOUT_BUDGET_MS): Promise<LayoutOutcome> {
  const key = JSON.stringify([graph, options]);
  const known = made.get(key);
  if (known) return Promise.resolve({ layouts: known });
  const attempt = `${budgetMs}:${key}`;
  const underWay = making.get(attempt);
  if (underWay) return underWay;
  const outcome = layoutInThread(graph, options, budgetMs).then((o) => {
    making.delete(attempt);
    if (o.layouts) {
      made.set(key, o.layouts);
      if (made.size > MADE_MAX) made.delete(made.keys().next().value!);
    }
    return o;
  });
  making.set(attempt, outcome);
  return outcome;
}

function layoutInThread(graph: MachineGraph, options: LayoutOptions, budgetMs: number): Promise<LayoutOutcome> {
  return new Promise((resolve) => {
    const worker = startModuleWorker(siblingModule(import.meta.url, 'layout-thread'));
    let settled = false;
    const settle = (outcome: LayoutOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      resolve(outcome);
    };
    const timer = setTimeout(() => settle({ layouts: null, reason: `the layout took over ${budgetMs} ms` }), budgetMs);
    worker.once('message', (m: { layouts?: Layouts; error?: string }) =>
      settle(m.layouts ? { layouts: m.layouts } : { layouts: null, reason: m.error ?? 'the layout thread answered nothing' }),
    );
    worker.once('error', (err) => settle({ layouts: null, reason: err.message }));
    worker.once('exit', (code) => settle({ layouts: null, reason: `the layout thread exited with code ${code}` }));
    worker.postMessage({ graph, options } satisfies LayoutRequest);
  });
}
