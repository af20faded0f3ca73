// Debian's Chromium for browser tests: where it is, whether it is installed, and how the tests launch it (headless, offline).
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's chromium package (apt-get install -y chromium). */
export const CHROMIUM = '/usr/bin/chromium';

/** Whether the browser is installed; a browser test skips with a warning when it is not. */
export const chromiumPresent = existsSync(CHROMIUM);

/** Launch headless Chromium with nothing that reaches the network. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
