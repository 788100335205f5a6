/**
 * What a server without a token must refuse from a browser on another site,
 * and from a Host it does not answer to (DNS rebinding): a POST that is not
 * JSON, any action whose Origin or Sec-Fetch-Site names another site, any
 * request with a Host other than the bound address. And every answer carries
 * the security headers.
 */
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { SECURITY_HEADERS } from '../../src/http/request-guard.js';
import { hostsAnswered } from '../../src/http/server.js';
import { useServers } from '../helpers/http-server.js';

const serve = useServers();

/** A raw request, so that Host can be set as a rebinding page's browser would send it. */
function raw(url: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: u.hostname, port: u.port, method, path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('actions from another site', () => {
  it('refuses a POST that is not JSON (a form or a text/plain fetch, which a browser sends without asking): 415, nothing changed', async () => {
    const s = await serve();
    const { body: job } = await s.call('POST', '/v1/jobs', { body: { name: 'a' } });
    const host = new URL(s.url).host;
    const types: Array<Record<string, string>> = [{ 'content-type': 'text/plain' }, { 'content-type': 'application/x-www-form-urlencoded' }, { 'content-type': 'multipart/form-data; boundary=x' }, {}];
    for (const headers of types) {
      const r = await raw(s.url, 'POST', `/v1/jobs/${job.id}/cancel`, { host, ...headers }, 'x=1');
      expect([r.status, JSON.parse(r.body).error.code]).toEqual([415, 'LJ_ERR_UNSUPPORTED_MEDIA_TYPE']);
      const pause = await raw(s.url, 'POST', '/v1/names/webhook/pause', { host, ...headers });
      expect(pause.status).toBe(415);
    }
    expect((await s.call('GET', `/v1/jobs/${job.id}`)).body.job.state).toBe('pending');
    expect((await s.call('GET', '/v1/stats')).body.paused).toEqual({ all: false, names: [] });
    // An empty JSON body is {}: a bare JSON POST works.
    expect((await raw(s.url, 'POST', '/v1/names/webhook/pause', { host, 'content-type': 'application/json' })).status).toBe(200);
  });

  it('refuses an action whose Origin or Sec-Fetch-Site is another site, JSON or not; the same origin passes', async () => {
    const s = await serve();
    const { body: job } = await s.call('POST', '/v1/jobs', { body: { name: 'a' } });
    const host = new URL(s.url).host;
    const json = { host, 'content-type': 'application/json' };
    const otherPort = `http://${new URL(s.url).hostname}:1`;
    const foreign: Array<Record<string, string>> = [{ origin: 'https://evil.example' }, { origin: otherPort }, { origin: 'null' }, { 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'same-site' }];
    for (const extra of foreign) {
      const r = await raw(s.url, 'POST', `/v1/jobs/${job.id}/cancel`, { ...json, ...extra }, '{}');
      expect([r.status, JSON.parse(r.body).error.code]).toEqual([403, 'LJ_ERR_CROSS_SITE']);
      const del = await raw(s.url, 'DELETE', '/v1/schedules/nightly', { host, ...extra });
      expect(del.status).toBe(403);
    }
    expect((await s.call('GET', `/v1/jobs/${job.id}`)).body.job.state).toBe('pending');
    const same = await raw(s.url, 'POST', `/v1/jobs/${job.id}/cancel`, { ...json, origin: s.url, 'sec-fetch-site': 'same-origin' }, '{}');
    expect(same.status).toBe(200);
    // Reads are not actions: a cross-site GET is not refused here (the token, when set, guards reads).
    expect((await raw(s.url, 'GET', '/v1/stats', { host, origin: 'https://evil.example' })).status).toBe(200);
  });
});

describe('Host', () => {
  it('a server bound to loopback answers its own address and localhost only (DNS rebinding); /healthz to any', async () => {
    const s = await serve();
    const port = new URL(s.url).port;
    for (const path of ['/', '/v1/stats', '/dashboard/assets/app.js']) {
      const r = await raw(s.url, 'GET', path, { host: `attacker.example:${port}` });
      expect([path, r.status]).toEqual([path, 421]);
    }
    expect(JSON.parse((await raw(s.url, 'GET', '/v1/stats', { host: 'attacker.example' })).body).error.code).toBe('LJ_ERR_HOST_NOT_ALLOWED');
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`]) expect((await raw(s.url, 'GET', '/v1/stats', { host })).status).toBe(200);
    expect((await raw(s.url, 'GET', '/healthz', { host: 'lb.internal' })).status).toBe(200);
  });

  it('refuses an absolute URL as the request target, and a second Host header: 400, nothing changed', async () => {
    const s = await serve();
    const host = new URL(s.url).host;
    const json = { 'content-type': 'application/json' };
    const absolute = await raw(s.url, 'POST', 'http://evil.example/v1/names/webhook/pause', { host, ...json });
    expect([absolute.status, JSON.parse(absolute.body).error.code]).toEqual([400, 'LJ_ERR_VALIDATION']);
    const twice = await new Promise<string>((resolve, reject) => {
      const u = new URL(s.url);
      const socket = connect(Number(u.port), u.hostname);
      let got = '';
      socket.setEncoding('utf8').on('data', (c: string) => (got += c));
      socket.on('end', () => resolve(got)).on('error', reject);
      socket.write(`POST /v1/names/webhook/pause HTTP/1.1\r\nHost: ${host}\r\nHost: evil.example\r\nContent-Type: application/json\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
    });
    expect(twice).toMatch(/^HTTP\/1.1 400/);
    expect((await s.call('GET', '/v1/stats')).body.paused).toEqual({ all: false, names: [] });
  });

  it('behind a proxy that rewrites Host, takes an action whose Origin is a host it answers to', async () => {
    const s = await serve({ server: { allowedHosts: ['jobs.example.com'] } });
    const host = new URL(s.url).host;
    const json = { 'content-type': 'application/json', host, 'sec-fetch-site': 'same-origin' };
    expect((await raw(s.url, 'POST', '/v1/names/webhook/pause', { ...json, origin: 'https://jobs.example.com' })).status).toBe(200);
    expect((await raw(s.url, 'POST', '/v1/names/other/pause', { ...json, origin: 'https://evil.example' })).status).toBe(403);
    expect((await s.call('GET', '/v1/stats')).body.paused).toEqual({ all: false, names: ['webhook'] });
  });

  it('answers the hosts given besides, and any Host when bound to every interface with none given', () => {
    expect(hostsAnswered('127.0.0.1', 3000, [])).toEqual(['127.0.0.1:3000', 'localhost:3000', '[::1]:3000']);
    expect(hostsAnswered('10.0.0.5', 443, ['Jobs.Example.com'])).toEqual(['10.0.0.5', '10.0.0.5:443', 'jobs.example.com']);
    expect(hostsAnswered('0.0.0.0', 3000, [])).toBeUndefined();
    expect(hostsAnswered('0.0.0.0', 3000, ['jobs.example.com'])).toEqual(['jobs.example.com']);
  });
});

describe('security headers', () => {
  it('are on every answer: the page, the API, errors and assets', async () => {
    const s = await serve({ server: { token: 'a-token-of-sixteen' } });
    const host = new URL(s.url).host;
    for (const [method, path] of [['GET', '/'], ['GET', '/v1/stats'], ['GET', '/nope'], ['GET', '/healthz'], ['POST', '/v1/jobs'], ['GET', '/dashboard/assets/app.js'], ['GET', '/favicon.ico']] as const) {
      const r = await raw(s.url, method, path, { host });
      for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect([path, name, r.headers[name]]).toEqual([path, name, value]);
    }
    expect(SECURITY_HEADERS['content-security-policy']).toContain("frame-ancestors 'none'");
  });
});
