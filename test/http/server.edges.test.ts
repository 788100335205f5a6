/**
 * What the server answers before any route runs, and to clients that do not
 * play by the rules: the API's error shape everywhere, a HEAD that ends, and a
 * body that dribbles in cut off.
 */
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { SECURITY_HEADERS } from '../../src/http/request-guard.js';
import { useServers } from '../helpers/http-server.js';

const serve = useServers();

/** Sends raw bytes, resolves with what came back once the server closes (or after `ms`). */
function rawExchange(url: string, text: string, ms = 5000): Promise<string> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(u.port), u.hostname);
    let got = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(got);
    }, ms);
    socket.setEncoding('utf8').on('data', (c: string) => (got += c));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(got);
    });
    socket.on('error', reject);
    socket.write(text);
  });
}

const bodyOf = (response: string) => JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4)) as { error: { code: string } };

describe('the server, before the routes', () => {
  it('answers a bad URL, oversized headers and a forbidden static path in the API error shape', async () => {
    const s = await serve();
    const host = new URL(s.url).host;
    const bad = await rawExchange(s.url, `GET /v1/jobs/%zz HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
    expect(bad).toMatch(/^HTTP\/1.1 400/);
    expect(bodyOf(bad).error.code).toBe('LJ_ERR_VALIDATION');
    const huge = await rawExchange(s.url, `GET /v1/stats HTTP/1.1\r\nHost: ${host}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(huge).toMatch(/^HTTP\/1.1 431/);
    expect(bodyOf(huge).error.code).toBe('LJ_ERR_VALIDATION');
    // Written to the socket before any route: the security headers all the same.
    for (const answer of [bad, huge]) for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(answer.toLowerCase()).toContain(`${name}: ${value}`.toLowerCase());
    for (const path of ['/dashboard/assets/%2e%2e/%2e%2e/package.json', '/dashboard/assets/.hidden']) {
      const r = await s.call('GET', path);
      expect([path, r.status, r.body.error?.code]).toEqual([path, 404, 'LJ_ERR_NOT_FOUND']);
    }
  });

  it('answers HEAD on the live stream with its headers, and ends', async () => {
    const s = await serve();
    const host = new URL(s.url).host;
    const head = await rawExchange(s.url, `HEAD /v1/dashboard/events HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`, 5000);
    expect(head).toMatch(/^HTTP\/1.1 200/);
    expect(head.toLowerCase()).toContain('content-type: text/event-stream');
  });

  it('cuts off a request whose body dribbles in past requestTimeout', async () => {
    const s = await serve({ server: { requestTimeout: 500 } });
    const host = new URL(s.url).host;
    const started = Date.now();
    // Headers promise 100 bytes; 10 come, then nothing.
    const answer = await rawExchange(s.url, `POST /v1/jobs HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":"a`, 10_000);
    expect(Date.now() - started).toBeLessThan(8000);
    expect(answer).toMatch(/^HTTP\/1.1 408|^$/);
    expect((await s.snapshot()).jobs).toBe(0);
  });
});

/** Opens a connection from `from` (an address of this machine's loopback) and sends the start of a request, never its end. */
function dribble(url: string, from: string): Promise<{ closed: Promise<number>; socket: import('node:net').Socket }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const opened = performance.now();
    const socket = connect({ port: Number(u.port), host: u.hostname, localAddress: from });
    const closed = new Promise<number>((done) => socket.on('close', () => done(performance.now() - opened)));
    socket.on('error', () => undefined); // a connection the server closes may reset
    socket.resume(); // read what the server answers, so its end is seen
    socket.once('connect', () => {
      socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
      resolve({ closed, socket });
    });
    socket.once('error', reject);
  });
}

describe('connections the server holds', () => {
  it('closes at once a connection past the bound of its client address; other clients, and /healthz from them, still get in', async () => {
    const s = await serve({ server: { maxConnectionsPerClient: 4 } });
    const held = await Promise.all(Array.from({ length: 4 }, () => dribble(s.url, '127.0.0.2')));
    const fifth = await dribble(s.url, '127.0.0.2');
    await fifth.closed; // closed by the server, no answer
    for (const h of held) expect(h.socket.destroyed).toBe(false);
    const other = await rawExchange(s.url, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    expect(other).toMatch(/^HTTP\/1\.1 200 /);
    // A slot given back is a slot again.
    held[0]!.socket.destroy();
    await held[0]!.closed;
    const again = await dribble(s.url, '127.0.0.2');
    expect(await Promise.race([again.closed.then(() => 'closed'), new Promise((r) => setTimeout(() => r('open'), 300))])).toBe('open');
    for (const h of [...held, again]) h.socket.destroy();
  });

  it('closes at once a connection past the server\'s bound, whatever its client', async () => {
    const s = await serve({ server: { maxConnections: 3 } });
    const held = await Promise.all(['127.0.0.2', '127.0.0.3', '127.0.0.4'].map((from) => dribble(s.url, from)));
    const fourth = await dribble(s.url, '127.0.0.5');
    await fourth.closed;
    for (const h of held) h.socket.destroy();
  });

  it('cuts off a client that dribbles its headers past headersTimeout', async () => {
    const s = await serve({ server: { headersTimeout: 500, requestTimeout: 5000 } });
    const slow = await dribble(s.url, '127.0.0.2');
    const keepAlive = setInterval(() => slow.socket.writable && slow.socket.write('X-A: b\r\n'), 100);
    try {
      expect(await slow.closed).toBeLessThan(4000);
    } finally {
      clearInterval(keepAlive);
    }
    await expect(serve({ server: { maxConnections: 0 } })).rejects.toThrow(/maxConnections must be a whole number/);
  });
});
