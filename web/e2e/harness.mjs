// harness.mjs starts bin/vramplan serve on a free loopback port and Debian's
// chromium through playwright-core, for the browser tests and benchmarks.

import { spawn, execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const bin = join(repo, 'bin', 'vramplan');
export const shots = join(repo, 'test-output', 'e2e');
mkdirSync(shots, { recursive: true });

/** serve starts the server and resolves to its base URL and a stop function. */
export function serve() {
  return new Promise((resolve, reject) => {
    const p = spawn(bin, ['serve', '--addr', '127.0.0.1:0'], { stdio: ['ignore', 'pipe', 'inherit'] });
    p.on('error', reject);
    p.stdout.on('data', (d) => {
      const m = /http:\/\/[^\s/]+\//.exec(String(d));
      if (m) resolve({ url: m[0], stop: () => p.kill('SIGTERM') });
    });
  });
}

/** browser launches chromium; playwright gives it a fresh temporary profile. */
export function browser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
    headless: true,
  });
}

/** planJSON runs `vramplan plan --json` with flags and returns the plan document. */
export function planJSON(args) {
  try {
    return JSON.parse(execFileSync(bin, ['plan', '--json', ...args], { encoding: 'utf8' }));
  } catch (e) {
    if (e.status === 1) return JSON.parse(e.stdout); // does not fit: still a plan
    throw e;
  }
}

/** text returns the trimmed text of the element with a data-testid. */
export const text = (page, id) => page.locator(`[data-testid="${id}"]`).first().innerText().then((s) => s.trim());

export const mib = (bytes) => Math.floor(bytes / 2 ** 20);
