// The audit page's side of a test: its address from `recap ui`, and a job scripted to trip,
// be denied and be summarized.
import { expect } from 'vitest';
import { runCli, type Sandbox } from './daemon.js';
import { goodSummary, prose } from './text.js';

/** The page's address from `recap ui`, and the cookie its token becomes. */
export async function openUi(box: Sandbox): Promise<{ url: string; origin: string; cookie: string }> {
  const shown = await runCli(box, ['ui']);
  expect(shown.code, shown.stderr).toBe(0);
  const url = shown.stdout.trim();
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{43}$/);
  const { origin, port, searchParams } = new URL(url);
  return { url, origin, cookie: `recap_ui_${port}=${searchParams.get('token')}` };
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
