/**
 * Client mistakes and hostile input are 400s on both stores, with the same
 * codes, and store nothing; a payload the search cannot read is skipped, never
 * a 5xx for every search of its state.
 */
import { describe, expect, it } from 'vitest';
import { defineJob } from '../../src/index.js';
import { TEST_STORE } from '../helpers/queue-fixture.js';
import { useServers } from '../helpers/http-server.js';

const serve = useServers();
const search = (where: string, state = 'pending') => `/v1/dashboard/jobs?state=${state}&where=${encodeURIComponent(where)}`;
/** A payload nested `depth` levels deep: `{ "d": { "d": … } }`. */
const deep = (depth: number) => JSON.parse(`${'{"d":'.repeat(depth)}1${'}'.repeat(depth)}`) as unknown;

describe('the payload search', () => {
  it('reads the whole payload, not its preview; a payload it cannot read is skipped, not a 503', async () => {
    const s = await serve();
    const long = (await s.call('POST', '/v1/jobs', { body: { name: 'a', payload: { note: 'x'.repeat(500), customer: 42 } } })).body.id;
    await s.call('POST', '/v1/jobs', { body: { name: 'a', payload: { customer: 7 } } });
    // As deep as a payload may be (SQLite's JSON functions read 1000 levels); one more is refused at ingest.
    expect((await s.call('POST', '/v1/jobs', { body: { name: 'a', payload: deep(1000) } })).status).toBe(201);
    const deeper = await s.call('POST', '/v1/jobs', { body: { name: 'a', payload: deep(1001) } });
    expect([deeper.status, deeper.body.error?.code]).toEqual([413, 'LJ_ERR_PAYLOAD_TOO_LARGE']);
    // Thousands of levels overflow JSON.stringify's own stack: the same answer.
    for (const levels of [5000, 50_000]) {
      const r = await s.call('POST', '/v1/jobs', { body: `{"name":"a","payload":${'['.repeat(levels)}${']'.repeat(levels)}}` });
      expect([levels, r.status, r.body.error?.code]).toEqual([levels, 413, 'LJ_ERR_PAYLOAD_TOO_LARGE']);
    }
    const found = await s.call('GET', search('payload.customer = 42'));
    expect(found.status).toBe(200);
    expect(found.body.jobs.map((j: { id: number }) => j.id)).toEqual([long]);
    expect((await s.call('GET', search('payload.note ~ xxxx'))).body.jobs.map((j: { id: number }) => j.id)).toEqual([long]);
    // The same search drives the bulk retry: no dead job matches, and nothing fails.
    expect(await s.call('POST', '/v1/jobs/retry', { body: { where: 'payload.customer = 42' } })).toEqual({ status: 200, body: { retried: 0 } });
  });

  it('refuses a hook body nested past the limit (it would be stored as sent), and answers every job it stores', async () => {
    const s = await serve({ server: { hooks: { deep: {} } } });
    const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
    const refused = await s.call('POST', '/v1/hooks/deep', { body: nested(5000) });
    expect([refused.status, refused.body.error?.code]).toEqual([413, 'LJ_ERR_PAYLOAD_TOO_LARGE']);
    expect((await s.snapshot()).jobs).toBe(0);
    // Stored as {"body": …, "headers": …}: one level more than the body.
    const kept = await s.call('POST', '/v1/hooks/deep', { body: nested(999) });
    expect(kept.status).toBe(201);
    expect((await s.call('GET', `/v1/jobs/${kept.body.id}`)).status).toBe(200);
    expect((await s.call('GET', '/v1/jobs?state=pending')).status).toBe(200);
  });

  it('refuses a NUL in a search value, and a cursor that is not one the listing gave: 400 LJ_ERR_VALIDATION', async () => {
    const s = await serve();
    for (let i = 0; i < 3; i++) await s.call('POST', '/v1/jobs', { body: { name: 'a', payload: { i } } });
    expect((await s.call('GET', search('payload.i = "a\u0000b"'))).status).toBe(400);
    const cursor = (key: unknown) => Buffer.from(JSON.stringify(key)).toString('base64url');
    const bad = [
      cursor([0, 'x', 1]), cursor(['0', 1, 1]), cursor([0, 1.5, 1]), cursor([0, 1e300, 1]), cursor([0, 1, null]), cursor([0, 1]), cursor({ a: 1 }),
      cursor([0, 1, '1\u0000']), 'not-base64!', cursor('a'), cursor([0, 1, 2, 3]),
    ];
    for (const c of bad) {
      const r = await s.call('GET', `/v1/dashboard/jobs?state=pending&limit=1&cursor=${encodeURIComponent(c)}`);
      expect([c, r.status, r.body.error?.code]).toEqual([c, 400, 'LJ_ERR_VALIDATION']);
    }
    // A name key: a string, never a NUL.
    for (const c of [cursor(['a\u0000', 1, 1]), cursor([1, 1, 1])]) expect((await s.call('GET', `/v1/dashboard/jobs?state=failed&limit=1&cursor=${encodeURIComponent(c)}`)).status).toBe(400);
  });
});

describe('query and path values', () => {
  it('a NUL in any query or path value is a 400 LJ_ERR_VALIDATION, never a statement the database refuses', async () => {
    const s = await serve();
    await s.call('POST', '/v1/jobs', { body: { name: 'a' } });
    for (const route of ['/v1/dashboard/jobs?state=a%00b', '/v1/jobs?name=a%00b', '/v1/jobs?state=pending&name=a%00', '/v1/dashboard/jobs?state=pending&name=x%00', '/v1/jobs/1/logs?after=%00']) {
      const r = await s.call('GET', route);
      expect([route, r.status, r.body.error?.code]).toEqual([route, 400, 'LJ_ERR_VALIDATION']);
      expect(r.body.error.message).toMatch(/NUL/);
    }
  });

  it('a database failure answers its code and a sentence: never the file, nor the connection\'s user, host, database or schema', async () => {
    const s = await serve();
    await s.call('POST', '/v1/jobs', { body: { name: 'a' } });
    // The jobs table gone from under the server: every read of it fails in the database.
    await s.sql('ALTER TABLE jobs RENAME TO jobs_away');
    try {
      const r = await s.call('GET', '/v1/jobs/1');
      expect([r.status, r.body.error?.code]).toEqual([503, 'LJ_ERR_DATABASE']);
      expect(r.body.error.message).toBe("the database failed this request; the server's log has the detail");
    } finally {
      await s.sql('ALTER TABLE jobs_away RENAME TO jobs');
    }
  });
});

describe('update', () => {
  it('PATCH /v1/jobs/:id holds a run time and a payload to the rules of enqueue: refused, nothing changed', async () => {
    const s = await serve();
    const { id } = (await s.call('POST', '/v1/jobs', { body: { name: 'a', payload: { n: 1 } } })).body;
    const before = await s.call('GET', `/v1/jobs/${id}`);
    for (const body of [{ delay: 1e300 }, { delay: 8.64e15 }, { runAt: 1e300 }, { runAt: 8.64e15 + 1 }, { runAt: -1 }, { delay: -1 }]) {
      const r = await s.call('PATCH', `/v1/jobs/${id}`, { body });
      const created = await s.call('POST', '/v1/jobs', { body: { name: 'a', ...body } });
      expect([JSON.stringify(body), r.status, r.body.error?.code, created.status]).toEqual([JSON.stringify(body), 400, 'LJ_ERR_VALIDATION', 400]);
    }
    const nul = await s.call('PATCH', `/v1/jobs/${id}`, { body: { payload: { text: 'a\u0000b' } } });
    const nulCreated = await s.call('POST', '/v1/jobs', { body: { name: 'a', payload: { text: 'a\u0000b' } } });
    // The same answer as enqueue's on each store: PostgreSQL's jsonb cannot hold a NUL, SQLite keeps it.
    expect(nul.status).toBe(nulCreated.status === 201 ? 200 : nulCreated.status);
    if (TEST_STORE === 'postgres') {
      expect([nul.status, nul.body.error.code]).toEqual([400, 'LJ_ERR_VALIDATION']);
      expect((await s.call('GET', `/v1/jobs/${id}`)).body).toEqual(before.body);
    }
    // A far run time that a Date holds is taken, and every listing that includes the job still answers.
    expect((await s.call('PATCH', `/v1/jobs/${id}`, { body: { runAt: 8.64e15 } })).status).toBe(200);
    for (const route of [`/v1/jobs/${id}`, '/v1/jobs?state=pending', '/v1/dashboard/jobs?state=pending']) expect([route, (await s.call('GET', route)).status]).toEqual([route, 200]);
  });
});

describe('enqueue', () => {
  it('refuses a NUL or half a surrogate pair in a key (idempotency, unique, debounce, throttle), a group or a name: 400, nothing stored', async () => {
    const s = await serve();
    for (const body of [
      { name: 'a', key: 'k\u0000' },
      { name: 'a', unique: { key: 'u\u0000' } },
      { name: 'a', debounce: { key: 'd\u0000', ms: 10 } },
      { name: 'a', throttle: { key: 't\u0000', ms: 10 } },
      // PostgreSQL would store U+FFFD in its place: the key would not read back as sent (and crashed the server once).
      { name: 'a', key: 'k\ud800' },
      { name: 'a', key: 'k\udc00x' },
      { name: 'a', unique: { key: 'u\ud800' } },
      { name: 'a', debounce: { key: 'd\udbff', ms: 10 } },
      { name: 'a', throttle: { key: 't\udfff', ms: 10 } },
      { name: 'a', group: 'g\ud800' },
    ]) {
      const r = await s.call('POST', '/v1/jobs', { body });
      expect([JSON.stringify(body), r.status, r.body.error?.code]).toEqual([JSON.stringify(body), 400, 'LJ_ERR_VALIDATION']);
    }
    expect((await s.snapshot()).jobs).toBe(0);
    // The server is still up, and a whole pair is a key like any other.
    expect((await s.call('POST', '/v1/jobs', { body: { name: 'a', key: 'k😀' } })).status).toBe(201);
    expect((await s.call('POST', '/v1/jobs', { body: { name: 'a', key: 'k😀' } })).body).toMatchObject({ created: false });
  });

  it(`a payload holding \\u0000: ${TEST_STORE === 'postgres' ? 'refused at ingest (jsonb cannot hold it), nothing stored' : 'stored, and searchable'}`, async () => {
    const s = await serve({ server: { hooks: { nul: {} } } });
    const body = '{"text":"a\\u0000b","n":1}';
    const hook = await s.call('POST', '/v1/hooks/nul', { body });
    const job = await s.call('POST', '/v1/jobs', { body: { name: 'a', payload: { text: 'a\u0000b' } } });
    if (TEST_STORE === 'postgres') {
      expect([hook.status, hook.body.error.code, job.status, job.body.error.code]).toEqual([400, 'LJ_ERR_VALIDATION', 400, 'LJ_ERR_VALIDATION']);
      expect((await s.snapshot()).jobs).toBe(0);
    } else {
      expect([hook.status, job.status]).toEqual([201, 201]);
    }
    // Either way, every search of the state keeps working.
    expect((await s.call('GET', search('payload.n = 1'))).status).toBe(200);
  });

  it('refuses a flow deeper than 64 levels with a 400 before anything is written, and answers a deep allowed one', async () => {
    const s = await serve();
    const chain = (levels: number) => {
      const root: { name: string; children?: unknown[] } = { name: 'a' };
      let node = root;
      for (let i = 1; i < levels; i++) {
        const child: { name: string; children?: unknown[] } = { name: 'a' };
        node.children = [child];
        node = child;
      }
      return root;
    };
    // As text: thousands of levels, deeper than the schema's validator can recurse.
    const chainText = (levels: number) => `${'{"name":"a","children":['.repeat(levels - 1)}{"name":"a"}${']}'.repeat(levels - 1)}`;
    for (const levels of [65, 1500, 3000, 20_000]) {
      const r = await s.call('POST', '/v1/flows', { body: levels > 1500 ? chainText(levels) : chain(levels) });
      expect([levels, r.status, r.body.error?.code]).toEqual([levels, 400, 'LJ_ERR_VALIDATION']);
    }
    expect((await s.snapshot()).jobs).toBe(0);
    const ok = await s.call('POST', '/v1/flows', { body: chain(64) });
    expect(ok.status).toBe(201);
    expect((await s.snapshot()).jobs).toBe(64);
  });

  it('refuses numbers JavaScript would change, and a runAt that is neither ISO 8601 nor ms since the epoch', async () => {
    const s = await serve();
    for (const text of ['{"name":"a","payload":{"id":12345678901234567891}}', '{"name":"a","payload":1e999}', '{"jobs":[{"name":"a","payload":[1e400]}]}']) {
      const r = await s.call('POST', text.startsWith('{"jobs"') ? '/v1/jobs/batch' : '/v1/jobs', { body: text });
      expect([text, r.status, r.body.error?.code]).toEqual([text, 400, 'LJ_ERR_VALIDATION']);
    }
    for (const runAt of ['1', 'tomorrow', '2030', 'Jan 1 2030', '2030-02-31', '2031-02-29', '2030-13-01', '2030-01-01T24:00:00Z', '2030-01-01T23:60:00Z']) {
      const r = await s.call('POST', '/v1/jobs', { body: { name: 'a', runAt } });
      expect([runAt, r.status]).toEqual([runAt, 400]);
    }
    expect((await s.snapshot()).jobs).toBe(0);
    for (const runAt of ['2030-01-02', '2032-02-29', '2030-01-02T03:04:05Z', '2030-01-02T03:04:05.123+02:00', Date.UTC(2030, 0, 2)]) {
      expect((await s.call('POST', '/v1/jobs', { body: { name: 'a', runAt } })).status).toBe(201);
    }
  });

  it('~ ignores case beyond ASCII: payload.c ~ Élan finds élan, ÉLAN and Élan', async () => {
    const s = await serve();
    const ids: number[] = [];
    for (const c of ['élan', 'ÉLAN', 'Élan vital', 'elan']) ids.push((await s.call('POST', '/v1/jobs', { body: { name: 'a', payload: { c } } })).body.id);
    const found = await s.call('GET', search('payload.c ~ Élan'));
    expect(found.body.jobs.map((j: { id: number }) => j.id).sort()).toEqual(ids.slice(0, 3).sort());
  });
});


describe('text PostgreSQL cannot keep as JSON', () => {
  it(`a payload holding half a surrogate pair: ${TEST_STORE === 'postgres' ? 'refused at enqueue, update and hooks, nothing stored' : 'stored'}; every search of the state answers`, async () => {
    const s = await serve({ server: { hooks: { lone: {} } } });
    const { id } = (await s.call('POST', '/v1/jobs', { body: { name: 'a', payload: { n: 1 } } })).body;
    const lone = { s: 'a\ud800b', n: 1 };
    const sent = [
      await s.call('POST', '/v1/jobs', { body: { name: 'a', payload: lone } }),
      await s.call('PATCH', `/v1/jobs/${id}`, { body: { payload: lone } }),
      await s.call('POST', '/v1/hooks/lone', { body: '{"s":"\\udc00","n":1}' }),
    ].map((r) => r.status);
    expect(sent).toEqual(TEST_STORE === 'postgres' ? [400, 400, 400] : [201, 200, 201]);
    // A whole pair is kept either way.
    expect((await s.call('POST', '/v1/jobs', { body: { name: 'a', payload: { s: '😀', n: 1 } } })).status).toBe(201);
    expect((await s.call('GET', search('payload.n = 1'))).status).toBe(200);
  });

  it('an error holding a NUL or half a surrogate pair is kept with U+FFFD in their place: the dead list and its search answer', async () => {
    const s = await serve({ queue: { jobs: [defineJob({ name: 'breaks', retry: { attempts: 1 }, handler: () => Promise.reject(new Error('boom \u0000 \ud800 😀')) })] } });
    const { id } = await s.queue.enqueue('breaks', { n: 1 });
    await s.queue.start();
    await expect(s.queue.result(id, { timeout: 20_000 })).rejects.toMatchObject({ code: 'LJ_ERR_JOB_FAILED' });
    expect((await s.queue.getJob(id)).lastError?.message).toBe('boom \ufffd \ufffd 😀');
    const dead = await s.call('GET', '/v1/dashboard/jobs?state=dead');
    expect([dead.status, dead.body.jobs.map((j: { id: number }) => j.id)]).toEqual([200, [id]]);
    expect((await s.call('GET', search('payload.n = 1', 'dead'))).status).toBe(200);
    expect((await s.call('POST', '/v1/jobs/retry', { body: { name: 'breaks', where: 'payload.n = 2' } })).status).toBe(200);
  });
});

describe('input past what a store indexes or counts', () => {
  it('a clean older than any time is a 200 that removes nothing; a key over 1,024 bytes is a 400, nothing stored', async () => {
    const s = await serve();
    await s.call('POST', '/v1/jobs', { body: { name: 'a' } });
    for (const olderThan of [1e300, '9999999999999d', Number.MAX_SAFE_INTEGER]) {
      expect(await s.call('POST', '/v1/jobs/clean', { body: { state: 'pending', olderThan } })).toEqual({ status: 200, body: { removed: 0 } });
    }
    const wide = '漢'.repeat(400); // 1,200 bytes in 400 characters
    for (const body of [{ name: 'a', key: wide }, { name: 'a', unique: { key: wide } }, { name: 'a', debounce: { key: wide, ms: 10 } }, { name: 'a', throttle: { key: wide, ms: 10 } }]) {
      const r = await s.call('POST', '/v1/jobs', { body });
      expect([Object.keys(body)[1], r.status, r.body.error?.code]).toEqual([Object.keys(body)[1], 400, 'LJ_ERR_VALIDATION']);
    }
    expect((await s.snapshot()).jobs).toBe(1);
    expect((await s.call('POST', '/v1/jobs', { body: { name: 'a', key: '漢'.repeat(341) } })).status).toBe(201);
  });

  it('takes back the latest run time it answers with (a year past 9999, as toISOString writes it)', async () => {
    const s = await serve();
    const { id } = (await s.call('POST', '/v1/jobs', { body: { name: 'a', runAt: 8.64e15 } })).body;
    const shown = (await s.call('GET', `/v1/jobs/${id}`)).body.job.runAt;
    expect(shown).toBe('+275760-09-13T00:00:00.000Z');
    expect((await s.call('PATCH', `/v1/jobs/${id}`, { body: { runAt: shown } })).status).toBe(200);
    expect((await s.call('POST', '/v1/jobs', { body: { name: 'a', runAt: shown } })).status).toBe(201);
    expect((await s.call('POST', '/v1/jobs', { body: { name: 'a', runAt: '+275760-09-14T00:00:00.000Z' } })).status).toBe(400);
  });
});

describe('rows litejobs never writes', () => {
  it('a row edited by hand into text that is not JSON is listed and searched past, never a failed read of its state', async () => {
    const s = await serve();
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push((await s.call('POST', '/v1/jobs', { body: { name: 'a', payload: { n: 1 } } })).body.id);
    await s.sql(`UPDATE jobs SET state = 'dead', last_error = 'not json' WHERE id = ${ids[0]}`);
    await s.sql(`UPDATE jobs SET state = 'dead', last_error = '{"message":"a\\u0000b"}' WHERE id = ${ids[1]}`);
    await s.sql(`UPDATE jobs SET payload = 'not json either' WHERE id = ${ids[2]}`);
    const dead = await s.call('GET', '/v1/dashboard/jobs?state=dead');
    expect([dead.status, dead.body.jobs.map((j: { id: number }) => j.id).sort()]).toEqual([200, ids.slice(0, 2).sort()]);
    expect((await s.call('GET', search('payload.n = 1', 'dead'))).status).toBe(200);
    const pending = await s.call('GET', search('payload.n = 1'));
    expect([pending.status, pending.body.jobs.map((j: { id: number }) => j.id)]).toEqual([200, []]);
    expect((await s.call('POST', '/v1/jobs/retry', { body: { name: 'a', where: 'payload.n = 2' } })).status).toBe(200);
    for (const id of ids) expect((await s.call('GET', `/v1/jobs/${id}`)).status).toBe(200);
  });
});
