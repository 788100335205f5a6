/**
 * The statechart in Chromium, on a queue with two machines (the base one and
 * the quarantine example): at 1280×800 one chart at a time behind a tab per
 * machine, every state name, count, label and rate at 12 px or more as
 * drawn, no two arrowheads on one point of a box, the quarantine chart whole
 * with no sideways scroll; switching tabs keeps the chosen state's list, and
 * a job's path brings its machine forward. At 390×844 each machine is a list
 * of its states with their counts, as wide as the screen.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createQuarantineMachine } from '../../machines/examples/quarantine.machine.js';
import { defineJob } from '../../src/index.js';
import { ARTIFACTS, openPage, useChromium } from '../helpers/browser.js';
import { CLI_TEST_TIMEOUT } from '../helpers/cli.js';
import { serveQueue } from '../helpers/served-queue.js';
import { dashboardGraphs } from '../../src/live/graphs.js';

const MIN_PX = 12;
/** route-paths.ts draws arrowheads 9 wide: tips closer than that overlap. */
const ARROW_WIDTH = 9;
const HOUR = 3_600_000;

const browser = useChromium();

// The functions below run in the page: the DOM's types are not this project's (no DOM lib), hence the loose types.
// biome-ignore lint/suspicious/noExplicitAny: page-side values
type Any = any;

/** Each text of the drawn chart with its size on screen: its font size times the SVG's scale. */
function chartText(page: Page): Promise<Array<{ cls: string; text: string; px: number }>> {
  return page.evaluate(() => {
    const doc = (globalThis as Any).document;
    return [...doc.querySelectorAll('svg.statechart text')]
      .filter((el: Any) => el.textContent.trim() !== '')
      .map((el: Any) => {
        const m = el.getScreenCTM();
        return { cls: el.getAttribute('class'), text: el.textContent.trim(), px: Number.parseFloat((globalThis as Any).getComputedStyle(el).fontSize) * Math.hypot(m.a, m.b) };
      });
  });
}

/** Every arrowhead's tip (the `M` of its path) in the chart's own units, with the state its edge (or bundle) ends on. */
function arrowTips(page: Page, targets: Record<string, string>): Promise<Array<{ x: number; y: number; to: string }>> {
  return page.evaluate((to: Record<string, string>) => {
    const doc = (globalThis as Any).document;
    return [...doc.querySelectorAll('svg.statechart path.arrow')].map((el: Any) => {
      const [, x, y] = /^M(-?[\d.]+) (-?[\d.]+)/.exec(el.getAttribute('d'))!;
      const group = el.closest('[data-edge], [data-bundle], .initial');
      const edge = group.getAttribute('data-edge') ?? group.getAttribute('data-bundle')?.split(' ')[0];
      return { x: Number(x), y: Number(y), to: edge ? to[edge]! : 'initial' };
    });
  }, targets);
}

/** The boxes of the drawn states in the chart's own units. */
function stateBoxes(page: Page): Promise<Record<string, { x: number; y: number; width: number; height: number }>> {
  return page.evaluate(() => {
    const doc = (globalThis as Any).document;
    const out: Record<string, Any> = {};
    for (const g of doc.querySelectorAll('svg.statechart [data-state]')) {
      const r = g.querySelector('rect.box');
      out[g.getAttribute('data-state')] = { x: +r.getAttribute('x'), y: +r.getAttribute('y'), width: +r.getAttribute('width'), height: +r.getAttribute('height') };
    }
    return out;
  });
}

/** The machine's panel: how wide it is against what it holds, and whether each state is inside it on screen. */
function panelFit(page: Page): Promise<{ scrollWidth: number; clientWidth: number; withinScreen: boolean; outside: string[] }> {
  return page.evaluate(() => {
    const doc = (globalThis as Any).document;
    const panel = doc.getElementById('machine-panel');
    const box = panel.getBoundingClientRect();
    const outside = [...panel.querySelectorAll('[data-state]')]
      .filter((el: Any) => {
        const r = el.getBoundingClientRect();
        return r.width === 0 || r.left < box.left - 0.5 || r.right > box.right + 0.5;
      })
      .map((el: Any) => el.getAttribute('data-state'));
    const withinScreen = box.left >= 0 && box.right <= doc.documentElement.clientWidth;
    return { scrollWidth: panel.scrollWidth, clientWidth: panel.clientWidth, withinScreen, outside };
  });
}

/** Each state's count as shown, in the panel. */
async function shownCounts(page: Page): Promise<Record<string, string>> {
  const pairs = await page
    .locator('#machine-panel [data-state]')
    .evaluateAll((els) => els.map((el: Any) => [el.getAttribute('data-state'), el.querySelector('[data-count]')?.textContent.trim()]));
  return Object.fromEntries(pairs);
}

async function expectLegibleChart(page: Page, states: string[], edges: Array<{ id: string; to: string }>): Promise<void> {
  const texts = await chartText(page);
  expect(texts.filter((t) => t.px < MIN_PX - 0.05)).toEqual([]);
  // Every state's name and count was measured, and each edge's label (a bundle's once).
  expect(texts.filter((t) => t.cls === 'name').map((t) => t.text).sort()).toEqual([...states].sort());
  expect(texts.filter((t) => t.cls === 'count')).toHaveLength(states.length);
  expect(texts.filter((t) => t.cls?.startsWith('label')).length).toBeGreaterThan(0);

  const tips = await arrowTips(page, Object.fromEntries(edges.map((e) => [e.id, e.to])));
  const boxes = await stateBoxes(page);
  tips.forEach((tip, i) => {
    // The initial arrow ends on the initial state; every tip touches its own target's border.
    const box = boxes[tip.to === 'initial' ? 'pending' : tip.to]!;
    const onX = Math.abs(tip.x - box.x) < 1 || Math.abs(tip.x - box.x - box.width) < 1;
    const onY = Math.abs(tip.y - box.y) < 1 || Math.abs(tip.y - box.y - box.height) < 1;
    expect(onX || onY, `arrow ${i} into ${tip.to} at (${tip.x}, ${tip.y})`).toBe(true);
    for (const other of tips.slice(i + 1)) {
      expect(Math.hypot(tip.x - other.x, tip.y - other.y), `arrows into ${tip.to} and ${other.to}`).toBeGreaterThanOrEqual(ARROW_WIDTH);
    }
  });
}

describe('dashboard statechart in Chromium', () => {
  it('draws one machine at a time, legible and whole at 1280×800, as a list of states at 390×844', { timeout: CLI_TEST_TIMEOUT }, async () => {
    const email = defineJob({ name: 'email', handler: () => 'sent' });
    const importJob = defineJob({ name: 'import', machine: createQuarantineMachine(), handler: () => 'ok' });
    // The charts laid out first, with all the time they need: the server's own 10 s budget (after which
    // the page lists the states instead, as designed) can run out on a machine loaded by the whole suite.
    await dashboardGraphs(new Map([email, importJob].map((d) => [d.name, d])), undefined, 120_000);
    const { queue, server, path, close } = await serveQueue({ jobs: [email, importJob] });
    const raw = new Database(path);
    const set = (state: string, id: number) => raw.prepare('UPDATE jobs SET state = ?, version = version + 1, updated_at = ? WHERE id = ?').run(state, Date.now(), id);
    try {
      const [, emailDead] = await queue.enqueueMany([1, 2].map((n) => ({ name: 'email', payload: { n }, options: { delay: HOUR } })));
      const [importWaiting, held, importDead] = await queue.enqueueMany([1, 2, 3].map((n) => ({ name: 'import', payload: { n }, options: { delay: HOUR } })));
      set('dead', emailDead!.id);
      set('quarantined', held!.id);
      set('dead', importDead!.id);
      await queue.enqueueMany([3, 4].map((n) => ({ name: 'email', payload: { n } })));
      const config = (await (await fetch(`${server.url}/v1/dashboard`)).json()) as { graphs: Array<{ id: string; graph: { states: Array<{ id: string }>; edges: Array<{ id: string; to: string }> } }> };
      const [base, own] = config.graphs;
      const statesOf = (g: typeof base) => g!.graph.states.map((s) => s.id);

      const { page, context, problems } = await openPage(browser(), { width: 1280, height: 800 });
      await page.goto(`${server.url}/`);
      const tabs = page.locator('[role=tab]');
      await tabs.first().waitFor();
      expect(await tabs.evaluateAll((els) => els.map((el: Any) => [el.getAttribute('data-machine'), el.getAttribute('aria-selected')]))).toEqual([
        ['job', 'true'],
        ['import', 'false'],
      ]);
      // Only the base machine is drawn; its emails run now, so its edges carry rates.
      expect(await page.locator('svg.statechart').count()).toBe(1);
      expect(await page.locator('#machine-panel [data-state=quarantined]').count()).toBe(0);
      await queue.start();
      await page.locator('#machine-panel [data-state=completed] [data-count]').filter({ hasText: /^\s*2\s*$/ }).waitFor({ timeout: 30_000 });
      await page.locator('[data-edge="processing:job.complete:completed"] [data-rate]').filter({ hasText: /\d/ }).waitFor({ timeout: 30_000 });
      await expectLegibleChart(page, statesOf(base), base!.graph.edges);
      expect(await panelFit(page)).toMatchObject({ outside: [], withinScreen: true });
      // One arrowhead and one label for the five job.cancel edges into cancelled.
      const cancels = page.locator('[data-bundle^="pending:job.cancel:cancelled"]');
      expect(await cancels.count()).toBe(1);
      expect(await cancels.locator('path.arrow').count()).toBe(1);
      expect((await cancels.locator('text.label').textContent())?.trim()).toBe('job.cancel');
      await page.locator('section[aria-labelledby=machine-title]').screenshot({ path: join(ARTIFACTS, 'statechart-1280-job.png') });

      // A state chosen from the keyboard lists its jobs: the base machine's dead email.
      await page.locator('#machine-panel [data-state=dead]').focus();
      await page.keyboard.press('Enter');
      const rows = page.locator('[data-testid=job-list] tr[data-job-id]');
      await page.locator(`[data-testid=job-list] tr[data-job-id="${emailDead!.id}"]`).waitFor({ timeout: 30_000 });
      expect(await rows.evaluateAll((trs) => trs.map((tr: Any) => tr.getAttribute('data-job-id')))).toEqual([String(emailDead!.id)]);

      // The quarantine machine's tab: its chart replaces the base one, whole, and the list shows its dead job.
      await page.locator('[role=tab][data-machine=import]').click();
      await page.locator('#machine-panel [data-state=quarantined]').waitFor();
      expect(await page.locator('svg.statechart').count()).toBe(1);
      expect(await page.locator('[role=tab][data-machine=import]').getAttribute('aria-selected')).toBe('true');
      const fit = await panelFit(page);
      expect(fit.scrollWidth).toBeLessThanOrEqual(fit.clientWidth);
      expect(fit).toMatchObject({ outside: [], withinScreen: true });
      await expectLegibleChart(page, statesOf(own), own!.graph.edges);
      expect(await shownCounts(page)).toMatchObject({ pending: '1', quarantined: '1', dead: '1', completed: '0' });
      expect(await page.locator('#machine-panel [data-state=dead]').getAttribute('aria-pressed')).toBe('true');
      await page.locator(`[data-testid=job-list] tr[data-job-id="${importDead!.id}"]`).waitFor({ timeout: 30_000 });
      expect(await rows.count()).toBe(1);
      await page.locator('section[aria-labelledby=machine-title]').screenshot({ path: join(ARTIFACTS, 'statechart-1280-import.png') });

      // Back to the base machine, then a quarantine job's detail: its path brings its machine's chart forward, marked.
      await page.locator('[role=tab][data-machine=job]').click();
      await page.locator('#machine-panel [data-state=waiting-children]').waitFor();
      await page.locator(`[data-testid=job-list] tr[data-job-id="${emailDead!.id}"]`).waitFor({ timeout: 30_000 });
      await page.goto(`${server.url}/#job=${importWaiting!.id}`);
      await page.locator('#machine-panel[data-machine=import] [data-state=pending].marker').waitFor({ timeout: 30_000 });
      expect(await page.locator('[role=tab][data-machine=import]').getAttribute('aria-selected')).toBe('true');
      // Bringing the job's machine forward chose nothing: the list is still the base machine's dead jobs.
      expect(await rows.evaluateAll((trs) => trs.map((tr: Any) => tr.getAttribute('data-job-id')))).toEqual([String(emailDead!.id)]);
      expect(problems).toEqual([]);
      await context.close();

      // A phone: each machine as a list of its states, none past the screen's edge, each with its count.
      const phone = await openPage(browser(), { width: 390, height: 844, colorScheme: 'dark' });
      await phone.page.goto(`${server.url}/`);
      await phone.page.locator('#machine-panel .state-list [data-state=completed] [data-count]').filter({ hasText: /^\s*2\s*$/ }).waitFor({ timeout: 30_000 });
      expect(await phone.page.locator('svg.statechart').count()).toBe(0);
      for (const [graph, counts] of [
        [base!, { pending: '1', processing: '0', completed: '2', dead: '1', cancelled: '0' }],
        [own!, { pending: '1', quarantined: '1', dead: '1', completed: '0' }],
      ] as const) {
        if (graph.id !== 'job') {
          await phone.page.locator(`[role=tab][data-machine=${graph.id}]`).click();
          await phone.page.locator('#machine-panel [data-state=quarantined]').waitFor();
        }
        const fit = await panelFit(phone.page);
        expect(fit).toMatchObject({ outside: [], withinScreen: true });
        expect(fit.scrollWidth).toBeLessThanOrEqual(fit.clientWidth);
        const shown = await shownCounts(phone.page);
        expect(Object.keys(shown).sort()).toEqual([...statesOf(graph)].sort());
        expect(shown).toMatchObject(counts);
        for (const state of statesOf(graph)) expect(await phone.page.locator(`#machine-panel [data-state="${state}"]`).isVisible()).toBe(true);
      }
      // The list selects as the chart does: the quarantined job is listed.
      await phone.page.locator('#machine-panel [data-state=quarantined]').click();
      await phone.page.locator(`[data-testid=job-list] tr[data-job-id="${held!.id}"]`).waitFor({ timeout: 30_000 });
      await phone.page.locator('section[aria-labelledby=machine-title]').screenshot({ path: join(ARTIFACTS, 'statechart-390-import.png') });
      expect(phone.problems).toEqual([]);
      await phone.context.close();
    } finally {
      raw.close();
      await close();
    }
  });
});
