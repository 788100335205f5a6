/** `litejobs serve` and `litejobs diagram`, run as users run them: child processes, real sockets, real files. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_TEST_TIMEOUT, runCli, startCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-db.js';
import { useReceivers } from '../helpers/http-receiver.js';
import { waitFor } from '../helpers/wait.js';
import { secretKey, verify } from '../../src/webhook/standard-webhooks.js';

const HANDLERS = fileURLToPath(new URL('../fixtures/cli-handlers.ts', import.meta.url));
const MACHINES_INDEX = fileURLToPath(new URL('../../machines/index.ts', import.meta.url));
const QUARANTINE = fileURLToPath(new URL('../../machines/examples/quarantine.machine.ts', import.meta.url));
const TOKEN = 'serve-test-token-123';
const receivers = useReceivers();

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());
const dir = () => {
  const d = tempDir();
  cleanup = d.cleanup;
  return d.dir;
};

describe('litejobs serve', { timeout: CLI_TEST_TIMEOUT }, () => {
  it('serves the API with a token, runs the handlers module, refuses a webhook job to a target the operator did not name, and exits 0 on SIGTERM', async () => {
    const db = join(dir(), 'q.db');
    const cli = startCli(['serve', '--port', '0', '--handlers', HANDLERS, '--db', db], { env: { LITEJOBS_TOKEN: TOKEN } });
    await cli.waitForOutput(/litejobs serving on/);
    const url = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(cli.stdout())?.[1];
    expect(url, cli.stdout()).toBeDefined();
    const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
    expect((await fetch(`${url}/v1/stats`)).status).toBe(401);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const post = async (name: string, payload: unknown) => {
      const res = await fetch(`${url}/v1/jobs`, { method: 'POST', headers: auth, body: JSON.stringify({ name, payload }) });
      expect(res.status).toBe(201);
      return ((await res.json()) as { id: number }).id;
    };
    const greet = await post('greet', { who: 'ada' });
    const shout = await post('shout', { text: 'hi' });
    // A delivery to a URL the request chose, on this machine: the server must not fetch it (no --deliver-to, no --allow-private-targets).
    const deliver = await post('webhook', { url: `${url}/healthz`, method: 'GET' });
    const job = async (id: number) =>
      ((await (await fetch(`${url}/v1/jobs/${id}`, { headers: auth })).json()) as { job: { state: string; result?: unknown; lastError?: { message: string } } }).job;
    const finished = (j: { state: string }) => j.state === 'completed' || j.state === 'dead';
    for (let i = 0; i < 300 && !(await Promise.all([greet, shout, deliver].map(job))).every(finished); i++) await new Promise((r) => setTimeout(r, 100));
    expect(await job(greet)).toMatchObject({ state: 'completed', result: { greeting: 'hello ada' } });
    expect(await job(shout)).toMatchObject({ state: 'completed', result: 'HI' });
    const refused = await job(deliver);
    expect(refused).toMatchObject({ state: 'dead' });
    expect(refused.result).toBeUndefined();
    expect(refused.lastError?.message).toMatch(/not one this job may send to/);
    cli.proc.kill('SIGTERM');
    const end = await cli.done;
    expect(end.code, end.stderr).toBe(0);
    expect(end.stdout).toMatch(/shutting down/);
  });

  it('with --hooks accepts only its hooks (--open-hooks adds the jobs it runs), and answers the Host values --allowed-host names', async () => {
    const d = dir();
    const hooks = join(d, 'hooks.json');
    writeFileSync(hooks, JSON.stringify({ listed: {} }));
    const hook = async (url: string, name: string, host?: string) => {
      const u = new URL(url);
      return new Promise<number>((resolve, reject) => {
        const req = httpRequest({ host: u.hostname, port: u.port, method: 'POST', path: `/v1/hooks/${name}`, headers: { host: host ?? u.host, 'content-type': 'application/json' } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end('{}');
      });
    };
    const start = async (extra: string[]) => {
      const cli = startCli(['serve', '--port', '0', '--handlers', HANDLERS, '--hooks', hooks, '--db', join(d, 'q.db'), ...extra]);
      await cli.waitForOutput(/litejobs serving on/);
      return { cli, url: /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(cli.stdout())![1]! };
    };
    const closed = await start([]);
    expect(await hook(closed.url, 'listed')).toBe(201);
    expect(await hook(closed.url, 'greet')).toBe(404); // a job it runs, but not a listed hook
    expect(await hook(closed.url, 'listed', 'jobs.example.com')).toBe(421);
    closed.cli.proc.kill('SIGTERM');
    expect((await closed.cli.done).code).toBe(0);
    const open = await start(['--open-hooks', '--allowed-host', 'jobs.example.com']);
    expect(await hook(open.url, 'greet')).toBe(201);
    expect(await hook(open.url, 'never-defined')).toBe(404);
    expect(await hook(open.url, 'listed', 'jobs.example.com')).toBe(201);
    expect(await hook(open.url, 'listed', 'attacker.example')).toBe(421);
    open.cli.proc.kill('SIGTERM');
    expect((await open.cli.done).code).toBe(0);
  });

  it("forwards a hook to its deliverTo, signed the Standard Webhooks way under its deliverSecret", async () => {
    const d = dir();
    const rx = await receivers.start((_n, _req, res) => res.writeHead(200).end());
    const secret = `whsec_${Buffer.from('serve-delivery-secret-1').toString('base64')}`;
    const hooks = join(d, 'hooks.json');
    writeFileSync(hooks, JSON.stringify({ pay: { deliverTo: `${rx.origin}/in`, deliverSecret: secret } }));
    // A deliverTo on this machine, without the flag that allows it: said at start, not by every delivery going to dead.
    const refused = await startCli(['serve', '--port', '0', '--hooks', hooks, '--db', join(d, 'q.db')]).done;
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`${rx.origin} is a loopback or private address: the webhook job sends there only with --allow-private-targets`);
    const cli = startCli(['serve', '--port', '0', '--hooks', hooks, '--allow-private-targets', '--db', join(d, 'q.db')]);
    await cli.waitForOutput(/litejobs serving on/);
    const url = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(cli.stdout())![1]!;
    const body = '{"amount":4200}';
    expect((await fetch(`${url}/v1/hooks/pay`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).status).toBe(201);
    await waitFor(() => rx.received.length === 1, 20_000);
    const [got] = rx.received;
    expect(got!.body).toBe(body);
    expect(verify(secretKey(secret), got!.headers, Buffer.from(got!.body), Date.now())).toMatchObject({ ok: true });
    cli.proc.kill('SIGTERM');
    expect((await cli.done).code).toBe(0);
  });

  it('--read-only runs no jobs: a server beside the main one leaves their jobs alone', async () => {
    const db = join(dir(), 'q.db');
    // A webhook to a target nobody allowed: a worker would send it to dead at once.
    const enqueued = await runCli(['enqueue', 'webhook', '{"url":"http://127.0.0.1:9/in"}', '--db', db]);
    expect(enqueued.code, enqueued.stderr).toBe(0);
    const cli = startCli(['serve', '--port', '0', '--read-only', '--db', db]);
    await cli.waitForOutput(/litejobs serving on/);
    const url = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(cli.stdout())![1]!;
    // The queue was never started (it says so when it starts, before the server's own line).
    expect(cli.stdout()).not.toMatch(/queue started/);
    const stats = (await (await fetch(`${url}/v1/stats`)).json()) as { byState: Record<string, number> };
    expect(stats.byState).toMatchObject({ pending: 1 });
    // Listing finished jobs builds no index here: a read-only server takes no write lock at all.
    for (const state of ['completed', 'dead', 'cancelled']) expect((await fetch(`${url}/v1/dashboard/jobs?state=${state}`)).status).toBe(200);
    const file = new Database(db, { readonly: true });
    expect(file.prepare("SELECT name FROM sqlite_master WHERE name = 'jobs_finished'").all()).toEqual([]);
    // Nor a row in the process registry: it runs no workers.
    expect(file.prepare('SELECT owner FROM worker_processes').all()).toEqual([]);
    file.close();
    cli.proc.kill('SIGTERM');
    expect((await cli.done).code).toBe(0);
    // Nor a new file at a mistyped path.
    const typo = join(dir(), 'typo.db');
    const missing = await runCli(['serve', '--port', '0', '--read-only', '--db', typo]);
    expect([missing.code, existsSync(typo)]).toEqual([1, false]);
    expect(missing.stderr).toMatch(/LJ_ERR_DATABASE_OPEN/);
  });

  it('refuses a public address without a token, a bad port and a handlers module that defines no job', async () => {
    const db = join(dir(), 'q.db');
    const open = await runCli(['serve', '--host', '0.0.0.0', '--port', '0', '--db', db]);
    expect(open.code).toBe(1);
    expect(open.stderr.trim().split('\n')).toHaveLength(1);
    expect(open.stderr).toMatch(/^litejobs: error: LJ_ERR_UNSAFE_BIND: refusing to listen on 0\.0\.0\.0 without a token/);
    const port = await runCli(['serve', '--port', 'eighty', '--db', db]);
    expect([port.code, port.stderr.trim().split('\n').length]).toEqual([2, 1]);
    // A token too short to guard anything is a usage error, from the flag or from LITEJOBS_TOKEN.
    for (const r of [await runCli(['serve', '--token', 'short', '--port', '0', '--db', db]), await runCli(['serve', '--port', '0', '--db', db], { env: { LITEJOBS_TOKEN: 'short' } })]) {
      expect([r.code, r.stderr.trim().split('\n').length]).toEqual([2, 1]);
      expect(r.stderr).toMatch(/at least 8 characters/);
    }
    expect(port.stderr).toMatch(/port/);
    const none = await runCli(['serve', '--port', '0', '--handlers', QUARANTINE, '--db', db]);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/exports no job definitions/);
  });
});

describe('litejobs diagram', { timeout: CLI_TEST_TIMEOUT }, () => {
  it('draws the base machine as Mermaid, DOT and SVG, and a user machine from its module', async () => {
    const mermaid = await runCli(['diagram']);
    expect(mermaid.code, mermaid.stderr).toBe(0);
    expect(mermaid.stdout).toMatch(/^stateDiagram-v2\n {4}\[\*\] --> pending\n/);
    expect(mermaid.stdout).toContain('pending --> processing : job.claim');
    const dot = await runCli(['diagram', '--format', 'dot']);
    expect(dot.stdout).toMatch(/^digraph /);
    expect(dot.stdout).toContain('"dead"');
    const out = join(dir(), 'machine.svg');
    const svg = await runCli(['diagram', '--format', 'svg', '--output', out]);
    expect(svg.code, svg.stderr).toBe(0);
    expect(svg.stderr).toMatch(/wrote .*machine\.svg \(9 states, \d+ transitions\)/);
    const drawn = readFileSync(out, 'utf8');
    expect(drawn).toMatch(/^<svg /);
    for (const state of ['pending', 'processing', 'completed', 'failed', 'dead', 'cancelled']) expect(drawn).toContain(`data-state="${state}"`);
    const user = await runCli(['diagram', QUARANTINE, '--export', 'createQuarantineMachine']);
    expect(user.code, user.stderr).toBe(0);
    expect(user.stdout).toContain('processing --> quarantined');
    // The CLI reference's example: litejobs/machines exports the example machine by that name.
    const fromIndex = await runCli(['diagram', MACHINES_INDEX, '--export', 'createQuarantineMachine', '--format', 'dot']);
    expect(fromIndex.code, fromIndex.stderr).toBe(0);
    expect(fromIndex.stdout).toContain('"quarantined"');
    expect(readFileSync(new URL('../../docs/reference/cli.md', import.meta.url), 'utf8')).toContain('--export createQuarantineMachine');
  });

  it('exits 2 on an unknown format and 1 on an export that is not a machine', async () => {
    const format = await runCli(['diagram', '--format', 'png']);
    expect([format.code, format.stderr.trim().split('\n').length]).toEqual([2, 1]);
    const missing = await runCli(['diagram', QUARANTINE, '--export', 'nope']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/has no export named "nope"/);
    const notMachine = await runCli(['diagram', QUARANTINE, '--export', 'QUARANTINE_EXPIRY_MS']);
    expect(notMachine.code).toBe(1);
    expect(notMachine.stderr).toMatch(/is not a machine/);
  });
});

describe('litejobs serve --pool', () => {
  it('runs a pool of its own for the names it lists, shown in /metrics and the workers view; a pool naming a job it does not run is a usage error', { timeout: CLI_TEST_TIMEOUT }, async () => {
    const d = tempDir();
    try {
      const db = join(d.dir, 'q.db');
      const cli = startCli(['serve', '--port', '0', '--handlers', HANDLERS, '--concurrency', '2', '--pool', 'greeters=greet:3', '--db', db]);
      await cli.waitForOutput(/litejobs serving on/);
      const url = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(cli.stdout())![1]!;
      const metrics = await (await fetch(`${url}/metrics`)).text();
      expect(metrics).toContain('litejobs_pool_workers{pool="greeters"} 3');
      expect(metrics).toContain('litejobs_pool_workers{pool="default"} 2');
      const workers = (await (await fetch(`${url}/v1/dashboard/workers`)).json()) as { workers: Array<{ owner: string; process?: { names: string[]; concurrency: number } }> };
      const greeters = workers.workers.find((w) => w.owner.endsWith('/greeters'));
      expect(greeters?.process).toMatchObject({ names: ['greet'], concurrency: 3 });
      cli.proc.kill('SIGTERM');
      expect((await cli.done).code).toBe(0);

      const refused = await runCli(['serve', '--port', '0', '--handlers', HANDLERS, '--pool', 'x=nope:1', '--db', db]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/"nope" is not a job this queue defines/);
      // Slots after the last ':' (a job name may hold one): the name is checked, not the syntax.
      const colon = await runCli(['serve', '--port', '0', '--handlers', HANDLERS, '--pool', 'x=mail:send:2', '--db', db]);
      expect(colon.stderr).toMatch(/"mail:send" is not a job this queue defines/);
      const malformed = await runCli(['serve', '--port', '0', '--pool', 'emails', '--db', db]);
      expect(malformed.code).toBe(2);
      expect(malformed.stderr).toMatch(/<pool>=<job names/);
    } finally {
      d.cleanup();
    }
  });
});
