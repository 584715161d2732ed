/**
 * Starts Debian's headless Chromium through playwright-core, for the gallery tests and
 * benchmark. No browser download: CI installs the `chromium` package (`.ci/run`).
 */
import { access } from 'node:fs/promises';
import { chromium, type Browser } from 'playwright-core';

/** Override with PEPE_CHROMIUM for a browser elsewhere. */
const CHROMIUM_PATH = process.env.PEPE_CHROMIUM ?? '/usr/bin/chromium';

/** Quiet, sandbox-free (containers run as root), offline: no background traffic skews byte counts. */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function launchChromium(): Promise<Browser> {
  try {
    await access(CHROMIUM_PATH);
  } catch {
    throw new Error(`Chromium not found at ${CHROMIUM_PATH}: install it with "apt-get install -y chromium" or set PEPE_CHROMIUM to its path.`);
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}
