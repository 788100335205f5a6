/**
 * What a person would call a broken layout, measured in the page: the page
 * wider than the screen, a box drawn past the screen's edge outside a
 * scroller of its own, text cut by its box with no ellipsis, and text drawn
 * under 12 px (SVG text at its rendered size, after the drawing is scaled).
 */
import type { Page } from 'playwright-core';

export interface LayoutReport {
  pageWidth: number;
  viewport: number;
  /** Boxes past the right edge of the screen, outside any horizontal scroller. */
  pastTheEdge: string[];
  /** Boxes that clip their own text without an ellipsis. */
  cutText: string[];
  /** Text drawn under 12 px, with its size. */
  smallText: string[];
}

export const MIN_TEXT_PX = 12;

// The probe runs in the page: the DOM's types are not this project's (no DOM lib), hence the loose type.
// biome-ignore lint/suspicious/noExplicitAny: page-side values
type Any = any;

export async function probeLayout(page: Page): Promise<LayoutReport> {
  // The function runs in the page: the DOM's types are not this project's (no DOM lib), hence the loose types.
  return page.evaluate((minPx: number) => {
    const g = globalThis as unknown as { document: Any; getComputedStyle(el: unknown): Any; NodeFilter: { SHOW_TEXT: number } };
    const doc = g.document;
    const viewport = doc.documentElement.clientWidth;
    const describe = (el: Any) => {
      const id = el.getAttribute?.('data-testid') ?? el.getAttribute?.('data-state') ?? '';
      const cls = typeof el.className === 'string' ? el.className : (el.getAttribute?.('class') ?? '');
      return `${el.tagName.toLowerCase()}${cls ? `.${cls.trim().split(/\s+/).join('.')}` : ''}${id ? `[${id}]` : ''} "${(el.textContent ?? '').trim().slice(0, 30)}"`;
    };
    const scrollsSideways = (el: Any) => {
      for (let p = el.parentElement; p; p = p.parentElement) {
        const o = g.getComputedStyle(p).overflowX;
        if ((o === 'auto' || o === 'scroll') && p !== doc.documentElement && p !== doc.body) return true;
      }
      return false;
    };
    const hidden = (el: Any) => {
      const s = g.getComputedStyle(el);
      return s.display === 'none' || s.visibility === 'hidden';
    };
    const pastTheEdge: string[] = [];
    const cutText: string[] = [];
    for (const el of doc.querySelectorAll('body *')) {
      if (hidden(el)) continue;
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      if ((r.right > viewport + 1 || r.left < -1) && !scrollsSideways(el)) pastTheEdge.push(describe(el));
      if (el instanceof g.document.defaultView.HTMLElement && el.children.length === 0 && (el.textContent ?? '').trim()) {
        const s = g.getComputedStyle(el);
        const clips = s.overflowX === 'hidden' || s.overflowX === 'clip';
        if (clips && el.scrollWidth > el.clientWidth + 1 && s.textOverflow !== 'ellipsis') cutText.push(describe(el));
      }
    }
    const small = new Set<string>();
    const walker = doc.createTreeWalker(doc.body, g.NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      const node = walker.currentNode;
      const el = node.parentElement;
      if (!el || !(node.textContent ?? '').trim() || hidden(el) || el.closest('[aria-hidden=true]')) continue;
      if (el.getBoundingClientRect().width === 0) continue;
      let px = Number.parseFloat(g.getComputedStyle(el).fontSize);
      // SVG text is drawn at its font size times the drawing's scale.
      if (typeof el.getScreenCTM === 'function' && el.ownerSVGElement) px *= Math.hypot(el.getScreenCTM().a, el.getScreenCTM().b);
      if (px < minPx - 0.05) small.add(`${describe(el)} at ${px.toFixed(1)} px`);
    }
    return { pageWidth: doc.documentElement.scrollWidth, viewport, pastTheEdge, cutText, smallText: [...small] };
  }, MIN_TEXT_PX);
}
