/**
 * Bodies over one job's limit (batches) are taken one at a time: a second
 * batch waits, unread, until the first is answered; smaller requests pass;
 * a client that leaves, waiting or mid-body, frees the way.
 */
import Fastify from 'fastify';
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createLargeBodyGate } from '../../src/http/large-body-gate.js';
import { useServers } from '../helpers/http-server.js';

const serve = useServers();

interface Exchange {
  socket: Socket;
  /** Everything answered so far. */
  answer(): string;
  /** Resolves with the whole answer once one has come. */
  answered: Promise<string>;
}

/** Opens a connection and sends the start of a request; the rest is the caller's to write. */
function open(url: string, head: string): Exchange {
  const u = new URL(url);
  const socket = connect(Number(u.port), u.hostname);
  let got = '';
  const answered = new Promise<string>((resolve, reject) => {
    socket.setEncoding('utf8').on('data', (c: string) => {
      got += c;
      const end = got.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(got)?.[1];
      if (end >= 0 && length !== undefined && got.length >= end + 4 + Number(length)) resolve(got);
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(got));
  });
  socket.write(head);
  return { socket, answer: () => got, answered };
}

function batchRequest(host: string, tag: string): { head: string; body: string } {
  const body = JSON.stringify({ jobs: [{ name: 'bulk', payload: { tag, fill: 'x'.repeat(3000) } }] });
  const head = `POST /v1/jobs/batch HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
  return { head, body };
}

const jobIdOf = (answer: string) => (JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { jobs: Array<{ id: number }> }).jobs[0]!.id;

describe('large request bodies', () => {
  it('are taken one at a time: a batch sent whole waits for the one before it', async () => {
    // 1 KiB a job: every 3 KiB batch here is a "large" body.
    const s = await serve({ server: { bodyLimit: 1024, batchBodyLimit: 64 * 1024 } });
    const host = new URL(s.url).host;
    const first = batchRequest(host, 'first');
    const second = batchRequest(host, 'second');
    // The first sends half its body and stalls; the second sends all of it.
    const a = open(s.url, first.head + first.body.slice(0, 1000));
    await new Promise((r) => a.socket.once('connect', r));
    const b = open(s.url, second.head + second.body);
    await new Promise((r) => b.socket.once('connect', r));
    // Small requests are not held back: the server answers several while both batches are open.
    for (let i = 0; i < 5; i++) expect((await s.call('GET', '/v1/stats')).status).toBe(200);
    expect(b.answer()).toBe('');
    a.socket.write(first.body.slice(1000));
    const [ra, rb] = await Promise.all([a.answered, b.answered]);
    expect(ra).toMatch(/^HTTP\/1.1 201/);
    expect(rb).toMatch(/^HTTP\/1.1 201/);
    // The second, whole long before the first, was stored after it.
    expect(jobIdOf(ra)).toBeLessThan(jobIdOf(rb));
    a.socket.destroy();
    b.socket.destroy();
  });

  it('takes a flow over 64 KiB through the same gate; a hook, unauthenticated, never waits in it nor holds it', async () => {
    const s = await serve({ server: { bodyLimit: 1024, batchBodyLimit: 256 * 1024, token: 'server-token-1234', hooks: { stripe: { secret: 's3cr3tkey' } } } });
    const host = new URL(s.url).host;
    const auth = 'Authorization: Bearer server-token-1234\r\n';
    // A hook that stalls mid-body, chunked (no length given): no token, no signature yet.
    const hook = open(s.url, `POST /v1/hooks/stripe HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n{\r\n`);
    await new Promise((r) => hook.socket.once('connect', r));
    // A batch that stalls mid-body holds the gate: the flow after it waits.
    const first = batchRequest(host, 'first');
    const a = open(s.url, first.head.replace('\r\n\r\n', `\r\n${auth}\r\n`) + first.body.slice(0, 1000));
    await new Promise((r) => a.socket.once('connect', r));
    const flowBody = JSON.stringify({ name: 'parent', payload: { fill: 'z'.repeat(70 * 1024) }, children: [{ name: 'child' }] });
    const flow = open(s.url, `POST /v1/flows HTTP/1.1\r\nHost: ${host}\r\n${auth}Content-Type: application/json\r\nContent-Length: ${flowBody.length}\r\n\r\n${flowBody}`);
    await new Promise((r) => flow.socket.once('connect', r));
    for (let i = 0; i < 5; i++) expect((await s.call('GET', '/healthz')).status).toBe(200);
    expect(flow.answer()).toBe('');
    a.socket.write(first.body.slice(1000));
    const [ra, rf] = await Promise.all([a.answered, flow.answered]);
    expect([ra.slice(0, 12), rf.slice(0, 12)]).toEqual(['HTTP/1.1 201', 'HTTP/1.1 201']);
    // The stalled hook is still open, and held nobody back.
    expect(hook.answer()).toBe('');
    for (const x of [a, flow, hook]) x.socket.destroy();
  });

  it('lets the next batch in when a client leaves mid-body or while it waits', async () => {
    const s = await serve({ server: { bodyLimit: 1024, batchBodyLimit: 64 * 1024 } });
    const host = new URL(s.url).host;
    const [first, waiting, last] = ['first', 'waiting', 'last'].map((tag) => batchRequest(host, tag)) as [ReturnType<typeof batchRequest>, ReturnType<typeof batchRequest>, ReturnType<typeof batchRequest>];
    const a = open(s.url, first.head + first.body.slice(0, 1000));
    await new Promise((r) => a.socket.once('connect', r));
    const b = open(s.url, waiting.head + waiting.body);
    await new Promise((r) => b.socket.once('connect', r));
    for (let i = 0; i < 3; i++) await s.call('GET', '/v1/stats');
    // The waiting one leaves first, then the one holding the way, half sent.
    b.socket.destroy();
    for (let i = 0; i < 3; i++) await s.call('GET', '/v1/stats');
    a.socket.destroy();
    const c = open(s.url, last.head + last.body);
    expect(await c.answered).toMatch(/^HTTP\/1.1 201/);
    c.socket.destroy();
    // Only the last one came whole: nothing of the others was stored.
    expect((await s.snapshot()).jobs).toBe(1);
  });

  it('closes a body that stalls once it is its turn, even where the server has no request timeout', async () => {
    // fastify's defaults: no request timeout at all. Bodies over 100 bytes must arrive within 300 ms of their turn.
    const app = Fastify();
    const gate = createLargeBodyGate(300);
    app.post('/echo', { preParsing: gate.over(100) }, async (request) => request.body);
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const host = new URL(url).host;
      const body = JSON.stringify({ fill: 'y'.repeat(500) });
      const head = `POST /echo HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
      const stalled = open(url, head + body.slice(0, 50));
      await new Promise((r) => stalled.socket.once('connect', r));
      const next = open(url, head + body);
      const answer = await next.answered;
      expect(answer).toMatch(/^HTTP\/1.1 200/);
      expect(answer.endsWith(body)).toBe(true);
      // The stalled one was cut off, not answered.
      await stalled.answered;
      expect(stalled.socket.destroyed || stalled.socket.readableEnded).toBe(true);
      expect(stalled.answer()).toBe('');
      next.socket.destroy();
    } finally {
      await app.close();
    }
  });
});
