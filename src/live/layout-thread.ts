/**
 * The thread that lays one chart out, both ways (started by
 * layout-off-thread.ts): elk is synchronous, and some machine shapes (a long
 * ring of states) take it seconds or exhaust its stack. Here that stalls no
 * request and no lease renewal.
 */
import { parentPort } from 'node:worker_threads';
import type { MachineGraph } from '../diagram/machine-graph.js';
import { layoutGraph, type LayoutOptions } from '../diagram/svg-layout.js';

export interface LayoutRequest {
  graph: MachineGraph;
  options: LayoutOptions;
}

const port = parentPort!;
port.once('message', (request: LayoutRequest) => {
  Promise.all([layoutGraph(request.graph, 'RIGHT', request.options), layoutGraph(request.graph, 'DOWN', request.options)]).then(
    ([RIGHT, DOWN]) => port.postMessage({ layouts: { RIGHT, DOWN } }),
    (err: unknown) => port.postMessage({ error: err instanceof Error ? err.message : String(err) }),
  );
});
