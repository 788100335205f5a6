/**
 * A page on another origin, in Chromium, tries what a browser lets any page
 * do without asking the server first: a form POST and a `no-cors` fetch with
 * a text body, at a litejobs server without a token on loopback. Neither may
 * cancel a job or pause a name; nor may a frame show the dashboard.
 */
import { createServer, type Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openPage } from '../helpers/browser.js';
import { useServers } from '../helpers/http-server.js';
import { waitFor } from '../helpers/wait.js';

const serve = useServers();
let browser: Browser;
let evil: Server | undefined;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  evil?.close();
});

/** Serves one page, from another origin (another port) than the litejobs server. */
async function servePage(html: string): Promise<string> {
  evil = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(html));
  await new Promise<void>((resolve) => evil!.listen(0, '127.0.0.1', resolve));
  const address = evil.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/`;
}

describe('a page on another origin', () => {
  it('cannot cancel a job or pause a name with a form or a no-cors fetch, nor frame the dashboard', async () => {
    const s = await serve();
    const { body: job } = await s.call('POST', '/v1/jobs', { body: { name: 'a' } });
    const html = `<!doctype html><body>
      <iframe id="frame" src="${s.url}/"></iframe>
      <form id="f" method="POST" action="${s.url}/v1/jobs/${job.id}/cancel" enctype="text/plain" target="sink"><input name="x" value="1"></form>
      <iframe name="sink"></iframe>
      <script>
        window.results = [];
        const send = (path, body) => fetch('${s.url}' + path, { method: 'POST', mode: 'no-cors', body }).then(() => results.push('sent ' + path), (e) => results.push('failed ' + e));
        Promise.all([send('/v1/names/webhook/pause', 'x'), send('/v1/jobs/${job.id}/cancel', '{}')]).then(() => { document.getElementById('f').submit(); window.done = true; });
      </script></body>`;
    const url = await servePage(html);
    // What the server answered each POST, as it finished answering.
    const answered: string[] = [];
    s.server.app.server.on('request', (req, res) => {
      if (req.method === 'POST') res.on('finish', () => answered.push(`${req.url} ${res.statusCode}`));
    });
    const { page, context } = await openPage(browser, { width: 800, height: 600 });
    try {
      await page.goto(url);
      await waitFor(() => answered.length === 3, 20_000);
      // Chromium says the page is another origin of the same site (Sec-Fetch-Site: same-site): refused as cross-site.
      expect(answered.sort()).toEqual([`/v1/jobs/${job.id}/cancel 403`, `/v1/jobs/${job.id}/cancel 403`, '/v1/names/webhook/pause 403']);
      expect((await s.call('GET', `/v1/jobs/${job.id}`)).body.job.state).toBe('pending');
      expect((await s.call('GET', '/v1/stats')).body.paused).toEqual({ all: false, names: [] });
      // frame-ancestors 'none': the dashboard's frame stays empty.
      const framed = page.frames().find((f) => f.url().startsWith(s.url) && f.name() !== 'sink');
      const shown = framed ? await framed.evaluate(() => (globalThis as unknown as { document: { querySelector(s: string): unknown } }).document.querySelector('#app') !== null).catch(() => false) : false;
      expect(shown).toBe(false);
    } finally {
      await context.close();
    }
  });
});
