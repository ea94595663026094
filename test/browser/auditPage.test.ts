// The audit page in real headless Chromium (Debian's chromium, driven by playwright-core)
// against a real daemon: who gets in, what a scripted job's meter shows, that new events
// appear without a reload, that a summary's gist and files show, that a session's report shows, what the sessions after a
// summary did (the memory quality signals), and that a tampered summary shows as a broken link. Every page
// is also checked for console errors, which is where a CSP violation would show.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Level } from 'level';
import { pack, unpack } from 'msgpackr';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { jobIdFor } from '../../src/common/jobs.js';
import { DEFAULT_SECTIONS } from '../../src/events/config.js';
import type { JobQuality } from '../../src/events/qualitySignals.js';
import { RawClient, ROOT, runCli, type Sandbox, trackedSandboxes } from '../helpers/daemon.js';
import { goodSummary, prose } from '../helpers/text.js';
import { launchChromium, openUi, rounds } from '../helpers/uiPage.js';

const { newBox, start } = trackedSandboxes(afterEach);
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

/** A fresh browser (no cookie yet) on `url`, with every console error and page error kept. */
async function visit(url: string): Promise<{ page: Page; problems: string[]; status: number | undefined }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  const response = await page.goto(url);
  return { page, problems, status: response?.status() };
}

/** Signed in with `recap ui`'s link, then on one job's page. */
async function jobPage(box: Sandbox, job: string) {
  const ui = await openUi(box);
  const visited = await visit(ui.url);
  await visited.page.goto(`${ui.origin}/#/job/${encodeURIComponent(job)}`);
  await visited.page.locator('figure.meter[data-points]').waitFor();
  return { ...visited, ui };
}

describe('the audit page in a browser', () => {
  it('opens with the token from recap ui, and shows nothing without it', async () => {
    const box = newBox();
    await start(box);
    const client = await RawClient.connect(box.socket);
    await client.request({ id: 1, op: 'record', job: 'j', kind: 'prompt', text: 'hello' });
    client.close();
    const ui = await openUi(box);

    const refused = await visit(`${ui.origin}/`);
    expect(refused.status).toBe(401);
    expect(await refused.page.textContent('body')).toContain('recap ui');
    const wrong = await visit(`${ui.origin}/?token=${'x'.repeat(43)}`);
    expect(wrong.status).toBe(401);

    const { page, problems } = await visit(ui.url);
    // The token left the address bar, and the cookie it became is out of the page's reach.
    expect(new URL(page.url()).search).toBe('');
    await expect.poll(() => page.locator('tr[data-job="j"]').count()).toBe(1);
    expect(await page.evaluate('document.cookie')).toBe('');
    // The usage view, reached from the navigation.
    await page.click('a[data-nav="usage"]');
    await expect.poll(() => page.locator('figure.usage').getAttribute('data-series')).toBe('0');
    expect(problems).toEqual([]);
  });

  it("draws a scripted job's meter: a trip, a denial and a drop for each summary, the chain verified", async () => {
    const box = newBox();
    await start(box);
    await rounds(box, 'j', 3);
    const { page, problems } = await jobPage(box, 'j');

    const meter = page.locator('figure.meter');
    expect(await meter.getAttribute('data-trips')).toBe('3');
    expect(await meter.getAttribute('data-drops')).toBe('3');
    expect(await meter.getAttribute('data-denials')).toBe('3');
    await page.locator('[data-verify="ok"]').waitFor();
    expect(await page.locator('.chain-list > li[data-seq]').count()).toBe(3);
    // An entry opened from the keyboard shows its hash and the hash it links to.
    await page.locator('.chain-list > li[data-seq] summary').nth(1).focus();
    await page.keyboard.press('Enter');
    const hashes = await page.locator('.chain-list > li[data-seq]').nth(1).locator('dd code').allTextContents();
    expect(hashes).toHaveLength(2);
    for (const hash of hashes) expect(hash).toMatch(/^[0-9a-f]{64}$/);

    // The slider answers from the keyboard: the state at the job's first moment.
    await page.locator('#at').focus();
    await page.keyboard.press('Home');
    await expect.poll(() => page.locator('output[for="at"]').textContent()).toMatch(/after event #\d+/);

    // Its summaries' signals: no session started after one (the rounds ran no agent).
    await page.locator('[data-quality="unfollowed"]').waitFor();
    expect(await page.locator('.quality-table tbody tr').count()).toBe(3);

    mkdirSync(join(ROOT, 'test-results'), { recursive: true });
    await page.screenshot({ path: join(ROOT, 'test-results', 'audit-job-page.png'), fullPage: true });
    expect(problems).toEqual([]);
  });

  it("shows each summary's gist, and the files its ## Files section names", async () => {
    const box = newBox();
    await start(box);
    mkdirSync(join(box.project, 'src'), { recursive: true });
    writeFileSync(join(box.project, 'src', 'parser.ts'), Array.from({ length: 8 }, (_, i) => `export const line${i} = ${i};`).join('\n'));
    writeFileSync(join(box.project, 'README.md'), '# Demo\n');
    await runCli(box, ['record', '--job', 'j', '--text', prose(3)]);
    const files = '## Files\n- read src/parser.ts:2-4 — where the parser starts reading\n- ref README.md — how the project is run';
    const submitted = await runCli(box, ['submit', '--job', 'j'], { input: `${goodSummary()}\n\n${files}\n` });
    expect(submitted.code, submitted.stderr).toBe(0);
    const [entry] = (JSON.parse((await runCli(box, ['chain', '--job', 'j', '--json'])).stdout) as { entries: { seq: number; gist: string }[] }).entries;

    const { page, problems } = await jobPage(box, 'j');
    const item = page.locator(`.chain-list > li[data-seq="${entry!.seq}"]`);
    // The gist is on the summary's line, before it is opened.
    expect(await item.locator('summary .gist').textContent()).toBe(entry!.gist);
    expect(await item.locator('summary .gist').getAttribute('data-gist-by')).toBe('agent');
    await item.locator('summary').click();
    const refs = item.locator('ul.refs > li');
    await expect.poll(() => refs.count()).toBe(2);
    expect(await refs.nth(0).getAttribute('data-mode')).toBe('read');
    expect(await refs.nth(0).textContent()).toMatch(/^read src\/parser\.ts lines 2–4 — where the parser starts reading · \d+ tokens · sha256 [0-9a-f]{12}$/);
    expect(await refs.nth(1).getAttribute('data-mode')).toBe('ref');
    expect(await refs.nth(1).textContent()).toMatch(/^ref README\.md — how the project is run · sha256 [0-9a-f]{12}$/);
    expect(problems).toEqual([]);
  });

  it("shows a session's report: its agent, its end and its tokens per model", async () => {
    const box = newBox();
    await start(box);
    const transcript = join(box.dir, 'sess-ui.jsonl');
    const line = { type: 'assistant', requestId: 'r1', message: { id: 'm1', model: 'claude-opus-5', usage: { input_tokens: 1500, output_tokens: 90 } } };
    writeFileSync(transcript, `${JSON.stringify(line)}\n`);
    const client = await RawClient.connect(box.socket);
    const base = { session_id: 'sess-ui', transcript_path: transcript, cwd: box.project };
    await client.request({ id: 1, op: 'hook', agent: 'claude', payload: { ...base, hook_event_name: 'UserPromptSubmit', prompt: prose(2) } });
    await client.request({ id: 2, op: 'hook', agent: 'claude', payload: { ...base, hook_event_name: 'SessionEnd', reason: 'other' } });
    client.close();

    const { page, problems } = await jobPage(box, jobIdFor(box.project));
    const row = page.locator('tr[data-session="sess-ui"]');
    await row.waitFor();
    expect(await row.locator('td').nth(0).textContent()).toBe('claude');
    expect(await row.locator('td').nth(2).textContent()).toMatch(/^ended .* \(other\)$/);
    expect(await row.locator('td[data-models]').textContent()).toBe('claude-opus-5: 1,500 / 90');
    expect(problems).toEqual([]);
  });

  it("charts what the sessions after a summary did: a rediscovery, a re-asked question, a correction, the task's tokens", async () => {
    const box = newBox();
    writeFileSync(box.config, 'TOKEN_THRESHOLD=20\n');
    mkdirSync(join(box.project, 'src'));
    const parser = join(box.project, 'src', 'parser.ts');
    writeFileSync(parser, 'export const parse = (text: string) => text.split("\\n");\n');
    await start(box);
    const client = await RawClient.connect(box.socket);
    let id = 0;
    const hook = (session: string, payload: Record<string, unknown>) =>
      client.request({ id: ++id, op: 'hook', agent: 'claude', payload: { session_id: session, transcript_path: `/tmp/none/${session}.jsonl`, cwd: box.project, ...payload } });
    // Session A's summary names src/parser.ts and records a decision.
    await hook('A', { hook_event_name: 'SessionStart', source: 'startup' });
    await hook('A', { hook_event_name: 'UserPromptSubmit', prompt: prose(3) });
    const decision = '- Use a hand-written parser for the config loader — a library would pull in YAML support nobody asked for';
    const summary = goodSummary(DEFAULT_SECTIONS).replace('## Questions & Decisions\n', () => `## Questions & Decisions\n${decision}\n`);
    const submitted = await runCli(box, ['submit'], { input: `${summary}\n\n## Files\n- ref src/parser.ts — the config parser under change\n` });
    expect(submitted.code, submitted.stderr).toBe(0);
    // Session B reads the file first, asks the decided question again and is corrected.
    const question = 'Which parser should the config loader use: a hand-written one or a library?';
    await hook('B', { hook_event_name: 'SessionStart', source: 'startup' });
    await hook('B', { hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path: parser }, tool_use_id: 'r1' });
    await hook('B', {
      hook_event_name: 'PostToolUse',
      tool_name: 'AskUserQuestion',
      tool_use_id: 'q1',
      tool_input: { questions: [{ question, header: 'Q', options: [{ label: 'a', description: 'a' }], multiSelect: false }] },
      tool_response: { answers: { [question]: 'a' } },
    });
    await hook('B', { hook_event_name: 'UserPromptSubmit', prompt: 'No, that is wrong: the parser must report every error at once, it never stops at the first one.' });
    await hook('B', { hook_event_name: 'SessionEnd', reason: 'other' });
    client.close();
    const job = jobIdFor(box.project);
    const report = JSON.parse((await runCli(box, ['report', '--quality', '--json', '--job', job])).stdout) as { quality: JobQuality[] };
    const { seq, task } = report.quality[0]!.summaries[0]!;

    const { page, problems } = await jobPage(box, job);
    const row = page.locator(`.quality-table tr[data-seq="${seq}"]`);
    await row.waitFor();
    const cell = (signal: string) => row.locator(`td[data-signal="${signal}"]`);
    expect(await cell('sessions').textContent()).toBe('1');
    for (const signal of ['rediscoveries', 'reasked', 'corrections']) {
      // The count beside its dots, and one dot drawn.
      expect(await cell(signal).locator('.count').textContent(), signal).toBe('1');
      expect(await cell(signal).locator('svg circle').count(), signal).toBe(1);
    }
    expect(await cell('rediscoveries').getAttribute('title')).toBe(`${parser} (session B)`);
    expect(task.countedTokens).toBeGreaterThan(0);
    expect(await cell('tokens').locator('.count').textContent()).toBe(`${task.countedTokens.toLocaleString('en')} tokens`);
    expect(await page.locator('[data-total="rediscoveries"]').textContent()).toBe('1 files rediscovered');
    mkdirSync(join(ROOT, 'test-results'), { recursive: true });
    await page.locator('section.quality').screenshot({ path: join(ROOT, 'test-results', 'audit-quality.png') });
    // The summary's number opens its chain entry.
    await row.locator('th a').click();
    await page.locator(`.chain-list li[data-seq="${seq}"] details[open] dd code`).first().waitFor();
    expect(problems).toEqual([]);
  });

  it('shows a new event within a second, without a reload', async () => {
    const box = newBox();
    await start(box);
    const client = await RawClient.connect(box.socket);
    await client.request({ id: 1, op: 'record', job: 'j', kind: 'prompt', text: 'hello' });
    const { page, ui, problems } = await jobPage(box, 'j');
    const points = Number(await page.locator('figure.meter').getAttribute('data-points'));

    await client.request({ id: 2, op: 'record', job: 'j', kind: 'prompt', text: 'one more thing to remember' });
    await page.locator(`figure.meter:not([data-points="${points}"])`).waitFor({ timeout: 1000 });
    expect(Number(await page.locator('figure.meter').getAttribute('data-points'))).toBeGreaterThan(points);

    await page.goto(`${ui.origin}/#/`);
    await page.locator('tr[data-job="j"]').waitFor();
    await client.request({ id: 3, op: 'record', job: 'another', kind: 'prompt', text: 'a new job' });
    await page.locator('tr[data-job="another"]').waitFor({ timeout: 1000 });
    client.close();
    expect(problems).toEqual([]);
  });

  it('shows a tampered summary as the broken link', async () => {
    const box = newBox();
    const daemon = await start(box);
    await rounds(box, 'j', 2);
    await daemon.stop();
    const db = new Level<Buffer, Buffer>(join(box.data, 'log'), { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    let tampered = 0;
    for (const [key, value] of await db.iterator().all()) {
      if (key.length !== 8) continue;
      const event = unpack(value) as { type: string; data: { text: string } };
      if (event.type !== 'SummaryAccepted') continue;
      event.data.text = event.data.text.replace(/\.$/m, '!');
      tampered = Number(key.readBigUInt64BE(0));
      await db.put(key, pack(event));
      break;
    }
    await db.close();
    await start(box);

    const { page } = await jobPage(box, 'j');
    const verdict = page.locator('[data-verify="broken"]');
    await verdict.waitFor();
    expect(await verdict.textContent()).toContain(`#${tampered}: the summary does not match its hash`);
    expect(await page.locator('li[data-broken="true"]').getAttribute('data-seq')).toBe(String(tampered));
  });
});
