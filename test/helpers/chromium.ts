import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium (`apt-get install -y chromium`, as .ci/run does): never a browser download. */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Whether the browser tests can run: Chromium is there. Under `CI=true` its absence is an
 * error (CI installs it); elsewhere the test named `what` is skipped, loudly.
 */
export function chromiumAvailable(what: string): boolean {
  if (existsSync(CHROMIUM)) return true;
  const message = `${CHROMIUM} is missing (apt-get install -y chromium)`;
  if (process.env.CI === 'true') throw new Error(`${message}; CI requires it (see .ci/run)`);
  console.warn(`\n*** SKIPPING ${what}: ${message}. ***\n`);
  return false;
}

/** Chromium headless, as the browser tests run it. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
}

/** A new page of `viewport`, logged in to the dashboard at `base` with `token`, on the runs list. */
export async function signedInPage(
  browser: Browser,
  base: string,
  token: string,
  viewport: { width: number; height: number },
): Promise<Page> {
  const page = await browser.newPage({ viewport });
  await page.goto(`${base}/login`);
  await page.fill('input[name=token]', token);
  await page.click('form.login button');
  await page.waitForURL(`${base}/runs`);
  return page;
}

/**
 * What is wrong with the laid-out table cells of the page: a cell outside the viewport
 * (the page or its table scrolls sideways), and on a phone, where rows are stacks of
 * labelled cells, a cell of a table with headers that has no label, or a label (the cell's
 * `::before`, placed in its left padding) whose box reaches into its value's. A script
 * string: the tests are typed without the DOM's library.
 */
export const TABLE_LAYOUT_PROBLEMS = `(() => {
  const problems = [];
  const width = window.innerWidth;
  if (document.documentElement.scrollWidth > width + 1)
    problems.push('the page scrolls sideways: ' + document.documentElement.scrollWidth + ' > ' + width);
  for (const cell of document.querySelectorAll('td, th')) {
    const box = cell.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;
    const text = (cell.textContent || '').trim().slice(0, 40);
    if (box.left < -0.5 || box.right > width + 0.5)
      problems.push('outside the viewport: ' + cell.tagName + ' [' + box.left + ', ' + box.right + '] "' + text + '"');
    if (cell.tagName !== 'TD' || getComputedStyle(cell).display !== 'block') continue;
    if (cell.closest('table').querySelector('thead') && !cell.hasAttribute('data-label'))
      problems.push('no label: "' + text + '"');
    const label = cell.getAttribute('data-label');
    if (!label) continue;
    const before = getComputedStyle(cell, '::before');
    const labelRight = parseFloat(before.left) + parseFloat(before.width);
    const valueLeft = parseFloat(getComputedStyle(cell).paddingLeft);
    if (labelRight > valueLeft + 0.5)
      problems.push('label "' + label + '" (to ' + labelRight + 'px) overlaps its value (from ' + valueLeft + 'px): "' + text + '"');
  }
  return problems;
})()`;
