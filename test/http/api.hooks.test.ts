import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { declareJob } from '../../src/index.js';
import { signatureMatches } from '../../src/http/auth.js';
import { secretKey, signatureHeaders } from '../../src/webhook/standard-webhooks.js';
import { useServers } from '../helpers/http-server.js';

const serve = useServers();
const sign = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('hex');

describe('POST /v1/hooks/:name', () => {
  it('stores the raw JSON body as the payload with the content type and the hook\'s listed headers', async () => {
    const s = await serve({ queue: { jobs: [declareJob('github.push')] }, server: { onlyListedHooks: false, hooks: { stripe: { headers: ['X-Stripe-Event', 'user-agent'] } } } });
    const body = '{"type":"invoice.paid","data":{"amount":4200,"nested":[1,{"a":null}]}}';
    const r = await s.call('POST', '/v1/hooks/stripe', {
      body,
      headers: { 'content-type': 'application/json; charset=utf-8', 'x-stripe-event': 'evt_1', 'user-agent': 'Stripe/1.0', 'x-not-kept': 'secret' },
    });
    expect(r).toEqual({ status: 201, body: { id: 1, state: 'pending', created: true } });
    const job = await s.queue.getJob(1);
    expect(job.name).toBe('stripe');
    expect(job.payload).toEqual({
      body: JSON.parse(body),
      headers: { 'content-type': 'application/json; charset=utf-8', 'x-stripe-event': 'evt_1', 'user-agent': 'Stripe/1.0' },
    });
    // With onlyListedHooks off, a job the queue knows is a hook too, and +json media types are JSON.
    const other = await s.call('POST', '/v1/hooks/github.push', { body: '{"ref":"main"}', headers: { 'content-type': 'application/vnd.github+json' } });
    expect(other.status).toBe(201);
    expect((await s.queue.getJob(other.body.id)).payload).toEqual({ body: { ref: 'main' }, headers: { 'content-type': 'application/vnd.github+json' } });
  });

  it('takes the idempotency key from Idempotency-Key, or from the hook\'s delivery header; per hook', async () => {
    const s = await serve({ server: { hooks: { gh: { keyHeader: 'X-GitHub-Delivery' }, other: {} } } });
    const a = await s.call('POST', '/v1/hooks/gh', { body: '{"n":1}', headers: { 'x-github-delivery': 'd-1' } });
    const b = await s.call('POST', '/v1/hooks/gh', { body: '{"n":2}', headers: { 'x-github-delivery': 'd-1' } });
    expect([a.status, b.status]).toEqual([201, 200]);
    expect(b.body).toEqual({ id: a.body.id, state: 'pending', created: false });
    const c = await s.call('POST', '/v1/hooks/gh', { body: '{"n":3}', headers: { 'idempotency-key': 'd-1' } });
    expect(c.body.id).toBe(a.body.id); // the same key, whichever header carried it
    const empty = await s.call('POST', '/v1/hooks/gh', { body: '{"n":5}', headers: { 'x-github-delivery': '', 'idempotency-key': 'd-1' } });
    expect(empty.body.id).toBe(a.body.id); // an empty delivery header is none: the next header gives the key
    const d = await s.call('POST', '/v1/hooks/other', { body: '{"n":4}', headers: { 'idempotency-key': 'd-1' } });
    expect(d).toMatchObject({ status: 201, body: { created: true } }); // another hook: another namespace
    expect((await s.queue.getJob(a.body.id)).payload).toMatchObject({ body: { n: 1 } });
    expect((await s.snapshot()).jobs).toBe(2);
  });

  it('verifies an HMAC-SHA256 signature; a bad or missing one is 401 and stores nothing', async () => {
    const secret = 'whsec_test_secret';
    const s = await serve({ server: { hooks: { pay: { secret, signatureHeader: 'X-Pay-Signature' } } } });
    const body = '{"amount":100}';
    const good = await s.call('POST', '/v1/hooks/pay', { body, headers: { 'x-pay-signature': `sha256=${sign(secret, body)}` } });
    expect(good.status).toBe(201);
    const before = await s.snapshot();
    const attempts: Array<Record<string, string>> = [
      {},
      { 'x-pay-signature': sign('wrong secret', body) },
      { 'x-pay-signature': sign(secret, '{"amount":1000}') }, // signed another body
      { 'x-pay-signature': 'sha256=zz' },
      { 'x-pay-signature': `${sign(secret, body)}00` },
      { 'x-signature': sign(secret, body) }, // the right value under the wrong header
    ];
    for (const headers of attempts) {
      const r = await s.call('POST', '/v1/hooks/pay', { body, headers });
      expect([r.status, r.body.error.code]).toEqual([401, 'LJ_ERR_BAD_SIGNATURE']);
    }
    // The signature covers the bytes sent, not a re-serialisation of the parsed JSON.
    const spaced = '{ "amount" : 100 }';
    const bytes = await s.call('POST', '/v1/hooks/pay', { body: spaced, headers: { 'x-pay-signature': sign(secret, spaced) } });
    expect(bytes.status).toBe(201);
    // Multi-byte characters: the HMAC is over the UTF-8 bytes, as the provider computed it.
    const accents = '{"name":"Zoë","note":"€ 😀"}';
    const utf8 = await s.call('POST', '/v1/hooks/pay', { body: accents, headers: { 'x-pay-signature': sign(secret, accents) } });
    expect(utf8.status).toBe(201);
    expect((await s.queue.getJob(utf8.body.id)).payload).toMatchObject({ body: { name: 'Zoë', note: '€ 😀' } });
    expect((await s.snapshot()).jobs).toBe(before.jobs + 2);
  });

  it('refuses bodies that are not JSON, too large, or for an unlisted hook when only listed hooks are served', async () => {
    const s = await serve({ server: { onlyListedHooks: true, bodyLimit: 1000, hooks: { known: {} } } });
    const before = await s.snapshot();
    const cases: Array<[string, Record<string, string>, number, string, string]> = [
      ['{"a":', { 'content-type': 'application/json' }, 400, 'LJ_ERR_PAYLOAD_NOT_JSON', 'known'],
      ['', { 'content-type': 'application/json' }, 400, 'LJ_ERR_PAYLOAD_NOT_JSON', 'known'],
      ['a=1', { 'content-type': 'application/x-www-form-urlencoded' }, 415, 'LJ_ERR_UNSUPPORTED_MEDIA_TYPE', 'known'],
      ['plain', { 'content-type': 'text/plain' }, 415, 'LJ_ERR_UNSUPPORTED_MEDIA_TYPE', 'known'],
      [JSON.stringify({ pad: 'x'.repeat(1000) }), { 'content-type': 'application/json' }, 413, 'LJ_ERR_PAYLOAD_TOO_LARGE', 'known'],
      ['{}', { 'content-type': 'application/json' }, 404, 'LJ_ERR_NOT_FOUND', 'unknown'],
      ['{}', { 'content-type': 'application/json' }, 400, 'LJ_ERR_VALIDATION', 'bad%20name'],
    ];
    for (const [body, headers, status, code, hook] of cases) {
      const r = await s.call('POST', `/v1/hooks/${hook}`, { body, headers });
      expect([hook, body.slice(0, 10), r.status, r.body.error?.code]).toEqual([hook, body.slice(0, 10), status, code]);
    }
    expect(await s.snapshot()).toEqual(before);
    expect((await s.call('POST', '/v1/hooks/known', { body: '{}' })).status).toBe(201);
  });

  it('a signed hook checks the signature before the body\'s type: a forged body of any type is a 401, a signed one not JSON a 415', async () => {
    const secret = 'whsec-of-the-provider';
    const s = await serve({ server: { hooks: { pay: { secret } } } });
    for (const [body, type] of [['plain', 'text/plain'], ['a=1', 'application/x-www-form-urlencoded'], ['<x/>', 'application/xml'], ['', 'text/plain']] as const) {
      const forged = await s.call('POST', '/v1/hooks/pay', { body, headers: { 'content-type': type, 'x-signature': sign('not the secret', body) } });
      const signed = await s.call('POST', '/v1/hooks/pay', { body, headers: { 'content-type': type, 'x-signature': sign(secret, body) } });
      expect([type, forged.status, forged.body.error?.code, signed.status, signed.body.error?.code]).toEqual([type, 401, 'LJ_ERR_BAD_SIGNATURE', 415, 'LJ_ERR_UNSUPPORTED_MEDIA_TYPE']);
    }
    // No content type at all: the same order.
    for (const [signature, status] of [[sign('not the secret', '{"a":1}'), 401], [sign(secret, '{"a":1}'), 415]] as const) {
      const res = await fetch(`${s.url}/v1/hooks/pay`, { method: 'POST', headers: { 'x-signature': signature }, body: new Blob(['{"a":1}']) });
      expect([signature.slice(0, 6), res.status]).toEqual([signature.slice(0, 6), status]);
    }
    expect((await s.snapshot()).jobs).toBe(0);
  });

  it('a hook with deliverTo enqueues the webhook delivery job with the raw body', async () => {
    const s = await serve({ server: { hooks: { fwd: { deliverTo: 'http://127.0.0.1:9/sink', headers: ['x-event'] } } } });
    const body = '{"id": 7}';
    const r = await s.call('POST', '/v1/hooks/fwd', { body, headers: { 'x-event': 'created' } });
    expect(r.status).toBe(201);
    const job = await s.queue.getJob(r.body.id);
    expect(job.name).toBe('webhook');
    expect(job.payload).toEqual({ url: 'http://127.0.0.1:9/sink', method: 'POST', headers: { 'content-type': 'application/json', 'x-event': 'created' }, body });
  });

  it('hook options with a typo are refused when the server starts', async () => {
    await expect(serve({ server: { hooks: { a: { secrett: 'x' } as never } } })).rejects.toThrow(/unknown option "secrett"/);
  });
});

describe('signatureMatches', () => {
  it('accepts the hex HMAC with or without sha256=, and nothing else', () => {
    const body = Buffer.from('{"x":1}');
    const hex = createHmac('sha256', 'k').update(body).digest('hex');
    expect(signatureMatches('k', body, hex)).toBe(true);
    expect(signatureMatches('k', body, `sha256=${hex}`)).toBe(true);
    expect(signatureMatches('k', body, hex.toUpperCase())).toBe(true);
    expect(signatureMatches('k', body, undefined)).toBe(false);
    expect(signatureMatches('k', body, '')).toBe(false);
    expect(signatureMatches('k', body, hex.slice(0, 63))).toBe(false);
    expect(signatureMatches('other', body, hex)).toBe(false);
    expect(signatureMatches('k', Buffer.from('{"x":2}'), hex)).toBe(false);
  });

  it('with a hooks list, only its hooks exist: an unlisted name (the job of a signed hook, an object member) is 404 and stores nothing', async () => {
    const s = await serve({ queue: { jobs: [declareJob('payments')] }, server: { hooks: { stripe: { secret: 'whsec_x', job: 'payments' } } } });
    for (const name of ['payments', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'anything']) {
      const r = await s.call('POST', `/v1/hooks/${name}`, { body: '{"forged":true}' });
      expect([name, r.status, r.body.error?.code]).toEqual([name, 404, 'LJ_ERR_NOT_FOUND']);
    }
    expect((await s.call('POST', '/v1/hooks/stripe', { body: '{}' })).status).toBe(401);
    expect((await s.snapshot()).jobs).toBe(0);
  });

  it('without a list, an unlisted name is accepted only as a job the queue defines or declares: callers cannot make up job names', async () => {
    const s = await serve({ queue: { jobs: [declareJob('orders')] } });
    expect((await s.call('POST', '/v1/hooks/orders', { body: '{}' })).status).toBe(201);
    for (const name of ['spam-1', 'spam-2', 'webhook', 'constructor']) expect((await s.call('POST', `/v1/hooks/${name}`, { body: '{}' })).status).toBe(404);
    expect((await s.snapshot()).jobs).toBe(1);
  });

  it('in the open mode beside a list, the job of a listed hook is reached through that hook only, never unsigned by its own name', async () => {
    const secret = 'whsec_provider';
    const s = await serve({
      queue: { jobs: [declareJob('gh'), declareJob('open')] },
      server: { onlyListedHooks: false, hooks: { std: { secret, job: 'gh' } } },
    });
    expect((await s.call('POST', '/v1/hooks/gh', { body: '{"forged":true}' })).status).toBe(404);
    expect((await s.call('POST', '/v1/hooks/std', { body: '{"forged":true}' })).status).toBe(401);
    expect((await s.call('POST', '/v1/hooks/open', { body: '{}' })).status).toBe(201);
    expect((await s.snapshot()).jobs).toBe(1);
  });

  it('with a token, a hook with a secret is let in by its signature alone; an unsigned hook still needs the token', async () => {
    const token = 'server-token-1234';
    const secret = 'whsec_provider';
    const s = await serve({ server: { token, hooks: { pay: { secret }, plain: {} } } });
    const body = '{"amount":1}';
    const signed = await s.call('POST', '/v1/hooks/pay', { body, headers: { 'x-signature': sign(secret, body) } });
    expect(signed.status).toBe(201);
    expect((await s.call('POST', '/v1/hooks/pay', { body, headers: { 'x-signature': sign('wrong', body) } })).status).toBe(401);
    expect((await s.call('POST', '/v1/hooks/plain', { body })).status).toBe(401);
    expect((await s.call('POST', '/v1/hooks/plain', { body, headers: { authorization: `Bearer ${token}` } })).status).toBe(201);
    // The signature lets in its own hook only: every other route still asks for the token.
    expect((await s.call('GET', '/v1/stats', { headers: { 'x-signature': sign(secret, '') } })).status).toBe(401);
  });

  it("one hook's deliveries cannot squat another's idempotency keys, nor can the jobs API", async () => {
    const s = await serve({ server: { hooks: { signed: { keyHeader: 'x-delivery' }, 'signed:evt': {} } } });
    // A hook named `signed:evt` with key 42 used to make the key of `signed`'s delivery `evt:42`.
    const squat = await s.call('POST', '/v1/hooks/signed:evt', { body: '{"fake":1}', headers: { 'idempotency-key': '42' } });
    expect(squat.status).toBe(201);
    const genuine = await s.call('POST', '/v1/hooks/signed', { body: '{"real":1}', headers: { 'x-delivery': 'evt:42' } });
    expect(genuine.body).toMatchObject({ created: true });
    expect(genuine.body.id).not.toBe(squat.body.id);
    for (const key of ['hook:signed:evt_7', 'hook:signed:evt:42', 'cron:nightly:1780000000000']) {
      const r = await s.call('POST', '/v1/jobs', { body: { name: 'a', key } });
      expect([key, r.status, r.body.error?.code]).toEqual([key, 400, 'LJ_ERR_VALIDATION']);
      const batch = await s.call('POST', '/v1/jobs/batch', { body: { jobs: [{ name: 'a', key }] } });
      expect(batch.status).toBe(400);
    }
  });

  it('stores the body as it came; a number JavaScript would change is refused as POST /v1/jobs refuses it, and forwarded to deliverTo byte for byte', async () => {
    const s = await serve({ server: { hooks: { exact: {}, fwd: { deliverTo: 'http://127.0.0.1:9/sink' } } } });
    const kept = '{"id":12345,"price":19.90, "at" : 1.5e3}';
    const r = await s.call('POST', '/v1/hooks/exact', { body: kept });
    expect(r.status).toBe(201);
    const [row] = await s.sql<{ payload: string }>('SELECT payload FROM jobs WHERE id = ?', [r.body.id]);
    expect(row!.payload).toBe(`{"body":${kept},"headers":{"content-type":"application/json"}}`);

    // The job would read back, and its handler get, another value: one policy with the jobs API.
    const before = await s.snapshot();
    for (const [body, number] of [
      ['{"id":12345678901234567891}', '12345678901234567891'],
      ['{"huge":[1,1e999]}', '1e999'],
    ]) {
      for (const route of ['/v1/hooks/exact', '/v1/jobs']) {
        const refused = await s.call('POST', route, { body: route === '/v1/jobs' ? `{"name":"exact","payload":${body}}` : body });
        expect([route, refused.status, refused.body.error?.code]).toEqual([route, 400, 'LJ_ERR_VALIDATION']);
        expect(refused.body.error.message).toContain(`the number ${number} cannot be kept exactly`);
      }
    }
    expect(await s.snapshot()).toEqual(before);

    // Forwarded, the body is text: sent on as it came, and read back as it came.
    const forwarded = '{"id":12345678901234567891,"huge":1e999}';
    const f = await s.call('POST', '/v1/hooks/fwd', { body: forwarded });
    expect(f.status).toBe(201);
    expect((await s.call('GET', `/v1/jobs/${f.body.id}`)).body.job.payload.body).toBe(forwarded);
  });

  it('checks the signature before it reads the body: a forged body that is not JSON is 401, and a forged megabyte is never parsed', async () => {
    const secret = 'whsec_first';
    const s = await serve({ server: { hooks: { pay: { secret } } } });
    const parse = JSON.parse;
    const parsed: string[] = [];
    JSON.parse = ((text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) => {
      parsed.push(String(text));
      return parse(text, reviver);
    }) as typeof JSON.parse;
    try {
      const big = `[${Array.from({ length: 200_000 }, (_, i) => i % 10).join(',')}]`;
      const forged = ['not json at all', '{"a":', big];
      for (const body of forged) {
        const r = await s.call('POST', '/v1/hooks/pay', { body, headers: { 'x-signature': sign(secret, `${body} `) } });
        expect([body.slice(0, 10), r.status, r.body.error?.code]).toEqual([body.slice(0, 10), 401, 'LJ_ERR_BAD_SIGNATURE']);
      }
      // (The answers the test client parses are the only texts parsed.)
      expect(parsed.filter((text) => forged.includes(text)).length).toBe(0);
      expect(parsed.length).toBeGreaterThan(0);
      // Signed, the same body that is not JSON is a 400.
      const r = await s.call('POST', '/v1/hooks/pay', { body: '{"a":', headers: { 'x-signature': sign(secret, '{"a":') } });
      expect([r.status, r.body.error?.code]).toEqual([400, 'LJ_ERR_PAYLOAD_NOT_JSON']);
    } finally {
      JSON.parse = parse;
    }
    expect((await s.snapshot()).jobs).toBe(0);
  });

  it('checks the signature over the bytes as they came, and refuses a body that is not UTF-8 after it', async () => {
    const secret = 'whsec_bytes';
    const s = await serve({ server: { hooks: { pay: { secret } } } });
    const send = (bytes: Buffer, signature: string) =>
      fetch(`${s.url}/v1/hooks/pay`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-signature': signature }, body: bytes });
    const sig = (bytes: Buffer) => createHmac('sha256', secret).update(bytes).digest('hex');
    // Latin-1 'é' (0xE9): not UTF-8. Signed over those bytes, the signature matches; the body is still refused.
    const latin1 = Buffer.from('{"name":"caf\u00e9"}', 'latin1');
    const refused = await send(latin1, sig(latin1));
    expect([refused.status, ((await refused.json()) as { error: { code: string } }).error.code]).toEqual([400, 'LJ_ERR_PAYLOAD_NOT_JSON']);
    // A signature over the bytes decoded and encoded again (what a lossy decoder gives) does not match.
    const reencoded = Buffer.from(latin1.toString('utf8'), 'utf8');
    expect((await send(latin1, sig(reencoded))).status).toBe(401);
    const utf8 = Buffer.from('{"name":"café"}', 'utf8');
    expect((await send(utf8, sig(utf8))).status).toBe(201);
    expect((await s.snapshot()).jobs).toBe(1);
  });

  it('verifies Standard Webhooks signatures (scheme standard): id, timestamp within tolerance, v1 signature over the bytes; webhook-id dedupes', async () => {
    const secret = `whsec_${Buffer.from('a-standard-webhooks-key!').toString('base64')}`;
    const s = await serve({ server: { token: 'server-token-5678', hooks: { std: { secret, scheme: 'standard' } } } });
    const body = '{"type":"invoice.paid","id":"in_1234"}';
    const headers = (id: string, at: number, b = body) => ({ ...signatureHeaders(secretKey(secret), id, Math.floor(at / 1000), b) });
    const first = await s.call('POST', '/v1/hooks/std', { body, headers: headers('msg_1', Date.now()) });
    expect(first.status).toBe(201); // no bearer: the signature authenticates the hook
    const again = await s.call('POST', '/v1/hooks/std', { body, headers: headers('msg_1', Date.now()) });
    expect(again.body).toEqual({ id: first.body.id, state: 'pending', created: false });
    // The signed webhook-id is the key: no unsigned header makes a replay a new job.
    for (const other of [{ 'idempotency-key': 'fresh' }, { 'idempotency-key': '' }]) {
      const replay = await s.call('POST', '/v1/hooks/std', { body, headers: { ...headers('msg_1', Date.now()), ...other } });
      expect(replay.body).toEqual({ id: first.body.id, state: 'pending', created: false });
    }
    const refused: Array<[string, Record<string, string>]> = [
      ['stale', headers('msg_2', Date.now() - 10 * 60_000)],
      ['future', headers('msg_3', Date.now() + 10 * 60_000)],
      ['other body', headers('msg_4', Date.now(), '{"type":"forged"}')],
      ['no headers', {}],
      ['other secret', { ...signatureHeaders(secretKey(`whsec_${Buffer.from('some-other-key-0000000').toString('base64')}`), 'msg_5', Math.floor(Date.now() / 1000), body) }],
    ];
    for (const [what, h] of refused) {
      const r = await s.call('POST', '/v1/hooks/std', { body, headers: h });
      expect([what, r.status, r.body.error?.code]).toEqual([what, 401, 'LJ_ERR_BAD_SIGNATURE']);
    }
    // Several signatures while a secret rotates: any one matching is enough.
    const rotating = headers('msg_6', Date.now());
    rotating['webhook-signature'] = `v1,${Buffer.alloc(32).toString('base64')} ${rotating['webhook-signature']}`;
    expect((await s.call('POST', '/v1/hooks/std', { body, headers: rotating })).status).toBe(201);
    expect((await s.snapshot()).jobs).toBe(2);
    await expect(serve({ server: { hooks: { bad: { scheme: 'standard' } } } })).rejects.toThrow(/needs a secret/);
  });
});

