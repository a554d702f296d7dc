import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

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
