import { describe, expect, it } from 'vitest';
import { defineWebhookJob, DEFAULT_WEBHOOK_RETRY, UnrecoverableError, ValidationError } from '../../src/index.js';
import { prepareWebhookRequest } from '../../src/webhook/payload.js';

describe('prepareWebhookRequest', () => {
  it('defaults to POST and sends a non-string body as JSON', () => {
    const req = prepareWebhookRequest({ url: 'https://example.com/hook#frag', body: { id: 1, tags: ['a'] } });
    expect(req).toEqual({ url: new URL('https://example.com/hook'), method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"id":1,"tags":["a"]}' });
  });

  it('keeps a content type the headers set, in any case', () => {
    const req = prepareWebhookRequest({ url: 'http://h/', headers: { 'Content-Type': 'application/cloudevents+json' }, body: [1] });
    expect(req.headers).toEqual({ 'Content-Type': 'application/cloudevents+json' });
    expect(req.body).toBe('[1]');
  });

  it('sends a string body as it is, with no content type added', () => {
    expect(prepareWebhookRequest({ url: 'http://h/', method: 'patch', body: '{"raw":' })).toMatchObject({ method: 'PATCH', headers: {}, body: '{"raw":' });
  });

  it('sends no body when there is none', () => {
    expect(prepareWebhookRequest({ url: 'http://h/', method: 'GET' })).toMatchObject({ method: 'GET', headers: {}, body: undefined });
  });

  it.each([
    ['a payload that is not an object', 'http://h/', 'must be an object'],
    ['an array payload', [], 'must be an object'],
    ['no url', {}, 'url must be a non-empty string'],
    ['a url that is not a string', { url: 42 }, 'url must be a non-empty string'],
    ['a url that does not parse', { url: 'not a url' }, 'url is not a valid URL'],
    ['an ftp: url', { url: 'ftp://h/' }, 'url must be http: or https:, got ftp:'],
    ['a file: url', { url: 'file:///etc/passwd' }, 'url must be http: or https:, got file:'],
    ['a url with credentials', { url: 'https://user:pw@h/' }, 'must not hold credentials'],
    ['a url too long', { url: `https://h/${'a'.repeat(9000)}` }, 'longer than 8192'],
    ['an unknown method', { url: 'http://h/', method: 'BREW' }, 'method must be one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS'],
    ['a method that is not a string', { url: 'http://h/', method: 1 }, 'method must be a string'],
    ['CONNECT', { url: 'http://h/', method: 'CONNECT' }, 'method must be one of'],
    ['headers that are not an object', { url: 'http://h/', headers: ['a'] }, 'headers must be an object'],
    ['a header value that is not a string', { url: 'http://h/', headers: { 'x-n': 1 } }, 'header "x-n" must be a string, got number'],
    ['a header name with a space', { url: 'http://h/', headers: { 'x y': '1' } }, 'is not a valid HTTP header name'],
    ['a header value with a line break', { url: 'http://h/', headers: { 'x-a': 'a\r\nx-b: injected' } }, 'must not contain CR, LF or NUL'],
    ['a header given twice', { url: 'http://h/', headers: { 'X-A': '1', 'x-a': '2' } }, 'given twice'],
    ['a GET with a body', { url: 'http://h/', method: 'get', body: 'x' }, 'a GET request cannot have a body'],
    ['an unknown key', { url: 'http://h/', uri: 'http://h/' }, 'unknown key "uri"'],
  ])('refuses %s with an UnrecoverableError', (_what, payload, message) => {
    let thrown: unknown;
    try {
      prepareWebhookRequest(payload);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(UnrecoverableError);
    expect((thrown as UnrecoverableError).code).toBe('LJ_ERR_UNRECOVERABLE');
    expect((thrown as Error).message).toContain(message);
  });
});

describe('defineWebhookJob', () => {
  it('is named webhook with the default policy and timeout unless told otherwise', () => {
    const job = defineWebhookJob();
    expect(job).toMatchObject({ name: 'webhook', timeout: 10_000, retry: DEFAULT_WEBHOOK_RETRY });
    expect(DEFAULT_WEBHOOK_RETRY).toMatchObject({ attempts: 10, backoff: { type: 'exponential', delay: 1000 }, maxDelay: 3_600_000 });
    expect(DEFAULT_WEBHOOK_RETRY.jitter).toBeGreaterThan(0);
  });

  it('layers the given retry policy over the default, key by key', () => {
    const job = defineWebhookJob({ name: 'hooks', timeout: 2000, retry: { attempts: 3, jitter: undefined } });
    expect(job).toMatchObject({ name: 'hooks', timeout: 2000, retry: { ...DEFAULT_WEBHOOK_RETRY, attempts: 3 } });
  });

  it.each([
    [{ nme: 'x' }, 'unknown option "nme"'],
    [{ timeout: 0 }, 'timeout must be an integer'],
    [{ maxBodyExcerpt: -1 }, 'maxBodyExcerpt must be an integer'],
    [{ retry: { attempts: 0 } }, 'retry.attempts'],
    [{ retry: { jitter: 2 } }, 'retry.jitter'],
    [{ dispatcher: {} }, 'dispatcher must be an undici Dispatcher'],
    [{ name: '' }, 'name must be a non-empty string'],
  ])('refuses the options %j with a ValidationError', (options, message) => {
    expect(() => defineWebhookJob(options as never)).toThrow(ValidationError);
    expect(() => defineWebhookJob(options as never)).toThrow(message);
  });
});
