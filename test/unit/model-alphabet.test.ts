/**
 * No public action outside the proof: every `Queue` method, HTTP route and
 * CLI command is named in the model check's alphabet
 * (test/helpers/model-alphabet.ts), with an operation the model runs, and the
 * alphabet names nothing that no longer exists.
 */
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { httpRoutes, withQueue } from '../helpers/http-routes.js';
import { CLI_COMMANDS, HTTP_ROUTES, MODEL_OPS, QUEUE_METHODS } from '../helpers/model-alphabet.js';

const KINDS = new Set<string>([...MODEL_OPS, 'read', 'config']);
const sorted = (names: Iterable<string>) => [...new Set(names)].sort();

describe("the model check's alphabet", () => {
  it('names every method of a queue, every route of the HTTP API and every CLI command, and nothing else', async () => {
    const methods = new Set<string>();
    const routes = await withQueue((queue) => {
      for (let o: object | null = queue; o && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
        for (const key of Object.getOwnPropertyNames(o)) if (key !== 'constructor' && typeof (queue as unknown as Record<string, unknown>)[key] === 'function') methods.add(key);
      }
      return httpRoutes(queue);
    });
    expect(methods.size).toBeGreaterThan(20);
    expect(sorted(Object.keys(QUEUE_METHODS))).toEqual(sorted(methods));
    expect(sorted(Object.keys(HTTP_ROUTES))).toEqual(sorted(routes));
    expect(sorted(Object.keys(CLI_COMMANDS))).toEqual(sorted(buildProgram().commands.map((c) => c.name())));
  });

  it('covers each action with an operation the model runs, or says it changes no job', () => {
    const named = [...Object.values(QUEUE_METHODS), ...Object.values(HTTP_ROUTES), ...Object.values(CLI_COMMANDS)];
    expect(named.filter((op) => !KINDS.has(op))).toEqual([]);
    // Every operation stands for some public action.
    expect(MODEL_OPS.filter((op) => !named.includes(op) && !['finish', 'crash', 'promoteDue', 'sweep', 'hint'].includes(op))).toEqual([]);
  });
});
