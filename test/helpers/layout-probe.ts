// Measure a rendered page's layout in the browser: what overflows the viewport, which badge is clipped, how tall rows are.
import type { Page } from 'playwright-core';

/** What the probe found; every list empty means the page fits its viewport. */
export interface Layout {
  innerWidth: number;
  innerHeight: number;
  /** document.scrollingElement.scrollWidth: wider than innerWidth means the page scrolls sideways. */
  scrollWidth: number;
  /** Elements whose box reaches past the viewport's right edge (or left of 0), outside an allowed scroller. */
  overflowing: string[];
  /** Badges (.pill) whose text does not fit their box, or that an ancestor with hidden/scrolling overflow cuts. */
  clipped: string[];
  /** Allowed scrollers (`[data-scroll]`) that overflow themselves: they must fit the viewport even if their content scrolls. */
  scrollers: string[];
}

/**
 * The probe, as source text run in the page (a string, so no bundler helper leaks into it). An element inside an
 * ancestor marked `data-scroll` may be wider than the viewport (that ancestor scrolls sideways on purpose and is
 * itself measured); every other visible element must end within innerWidth + 0.5 px.
 */
const PROBE = `(() => {
  const W = window.innerWidth;
  const name = (el) => {
    const id = el.id ? '#' + el.id : '';
    const cls = typeof el.className === 'string' && el.className ? '.' + el.className.trim().split(/\\s+/).join('.') : '';
    const data = el.getAttribute('data-gate') ? '[data-gate=' + el.getAttribute('data-gate') + ']' : '';
    return el.tagName.toLowerCase() + id + cls + data;
  };
  const path = (el) => { const p = []; for (let e = el; e && e !== document.body; e = e.parentElement) p.unshift(name(e)); return p.join(' > '); };
  const overflowing = [];
  const scrollers = [];
  for (const el of document.body.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    const scroller = el.parentElement && el.parentElement.closest('[data-scroll]');
    if (scroller) continue;
    if (r.right > W + 0.5 || r.left < -0.5) overflowing.push(path(el) + ' [' + Math.round(r.left) + '..' + Math.round(r.right) + ']');
    if (el.hasAttribute('data-scroll') && r.right > W + 0.5) scrollers.push(path(el));
  }
  const clipped = [];
  for (const pill of document.querySelectorAll('.pill')) {
    const r = pill.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (pill.scrollWidth > pill.clientWidth + 0.5) clipped.push(path(pill) + ' scrollWidth ' + pill.scrollWidth + ' > clientWidth ' + pill.clientWidth);
    for (let a = pill.parentElement; a; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
      const b = a.getBoundingClientRect();
      if (r.left < b.left - 0.5 || r.right > b.right + 0.5 || r.top < b.top - 0.5 || r.bottom > b.bottom + 0.5)
        clipped.push(path(pill) + ' cut by ' + name(a));
      else if (a.scrollWidth > a.clientWidth + 0.5 && a.contains(pill) && s.overflowX !== 'visible')
        clipped.push(path(pill) + ' inside ' + name(a) + ' that scrolls sideways');
    }
  }
  return {
    innerWidth: W,
    innerHeight: window.innerHeight,
    scrollWidth: document.scrollingElement.scrollWidth,
    overflowing,
    clipped,
    scrollers,
  };
})()`;

/** Run the probe in `page` (already loaded, at the viewport to test). */
export async function probeLayout(page: Page): Promise<Layout> {
  return page.evaluate<Layout>(PROBE);
}
