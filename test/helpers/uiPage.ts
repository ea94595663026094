// The audit page's side of a test: Debian's Chromium to open it in, its address from `recap ui`,
// and a job scripted to trip, be denied and be summarized.
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { chromium, type Browser } from 'playwright-core';
import { expect } from 'vitest';
import { runCli, type Sandbox } from './daemon.js';
import { goodSummary, prose } from './text.js';

const CHROMIUM = process.env.RECAP_CHROMIUM ?? '/usr/bin/chromium';

/** Headless Chromium, driven by playwright-core; a missing one fails the test with what to install. */
export function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: install Debian's chromium (apt-get install chromium, as .ci/run does) or set RECAP_CHROMIUM`);
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

/** The page's address from `recap ui`, and the session cookie a browser gets for it. */
export async function openUi(box: Sandbox): Promise<{ url: string; origin: string; cookie: string }> {
  const shown = await runCli(box, ['ui']);
  expect(shown.code, shown.stderr).toBe(0);
  const url = shown.stdout.trim();
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{43}$/);
  return { url, origin: new URL(url).origin, cookie: await signIn(url) };
}

/** Follows `recap ui`'s link as a browser does: the cookie (name=value) it is given. */
export function signIn(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    request(url, (res) => {
      res.resume();
      const [cookie] = res.headers['set-cookie'] ?? [];
      if (res.statusCode !== 303 || cookie === undefined) reject(new Error(`signing in answered ${res.statusCode}`));
      else resolve(cookie.split(';')[0]!);
    })
      .once('error', reject)
      .end();
  });
}

/** Records until the gate trips, has one tool call denied, then writes the summary: `count` times. */
export async function rounds(box: Sandbox, job: string, count: number): Promise<void> {
  for (let round = 0; round < count; round += 1) {
    for (;;) {
      const recorded = await runCli(box, ['record', '--job', job, '--json', '--text', prose(12)]);
      if ((JSON.parse(recorded.stdout) as { gate: { tripped: boolean } }).gate.tripped) break;
    }
    expect((await runCli(box, ['check', '--job', job, '--tool', 'Read'])).code).toBe(2);
    const submitted = await runCli(box, ['submit', '--job', job], { input: goodSummary(undefined, round) });
    expect(submitted.code, submitted.stderr).toBe(0);
  }
}
