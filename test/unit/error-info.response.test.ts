/** What toErrorInfo keeps of the HTTP response an error carries. */
import { describe, expect, it } from 'vitest';
import { WebhookDeliveryError } from '../../src/index.js';
import { toErrorInfo } from '../../src/engine/run/job-runner.js';

describe('toErrorInfo and HTTP responses', () => {
  it('keeps the status, headers and body of a litejobs error, through JSON', () => {
    const err = new WebhookDeliveryError('LJ_ERR_WEBHOOK_DELIVERY', 'POST http://h answered 502', { response: { status: 502, headers: { 'x-request-id': 'r1' }, body: 'bad gateway' } });
    const info = JSON.parse(JSON.stringify(toErrorInfo(err)));
    expect(info).toMatchObject({ name: 'WebhookDeliveryError', code: 'LJ_ERR_WEBHOOK_DELIVERY', status: 502, headers: { 'x-request-id': 'r1' }, body: 'bad gateway' });
    expect(info.unrecoverable).toBeUndefined();
    expect(info.retryAfter).toBeUndefined();
  });

  it('reads the code of a webhook error as the outcome it asks for', () => {
    const response = { status: 429, headers: {}, body: '' };
    expect(toErrorInfo(new WebhookDeliveryError('LJ_ERR_RETRY_LATER', 'later', { response, delay: 2000 }))).toMatchObject({ retryAfter: 2000, status: 429 });
    expect(toErrorInfo(new WebhookDeliveryError('LJ_ERR_UNRECOVERABLE', 'gone', { response: { ...response, status: 410 } }))).toMatchObject({ unrecoverable: true, status: 410 });
  });

  it('bounds what it keeps', () => {
    const headers = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`h${i}`, 'v'.repeat(5000)]));
    const info = toErrorInfo(new WebhookDeliveryError('LJ_ERR_WEBHOOK_DELIVERY', 'x', { response: { status: 500, headers, body: 'b'.repeat(10_000) } }));
    expect(Object.keys(info.headers!)).toHaveLength(16);
    expect(info.headers!.h0).toHaveLength(1024);
    expect(info.body).toHaveLength(4096);
  });

  it("ignores another library's status, headers and body: they may be the request's, credentials included", () => {
    const err = Object.assign(new Error('request failed'), { code: 'ERR_BAD_RESPONSE', status: 401, headers: { authorization: 'Bearer secret' }, body: 'x' });
    const info = toErrorInfo(err);
    expect(info).toEqual({ name: 'Error', message: 'request failed', code: 'ERR_BAD_RESPONSE', stack: expect.any(String) });
  });
});
