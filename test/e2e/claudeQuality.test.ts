// End to end: the memory quality signals from the real Claude Code. Its first session trips
// the gate with its prompt and submits, through Bash, a summary naming src/parser.ts; its
// second session opens with a prompt that corrects what the summary said, and its first tool
// call reads that file again. The audit page (in Chromium) shows one rediscovery and one
// correction for that summary, and an OTLP/HTTP collector on 127.0.0.1 receives
// recap.quality.rediscoveries and recap.quality.corrections = 1 for the job. Re-asked
// questions are not scripted here: `claude -p` answers a call of AskUserQuestion with "No such
// tool available: AskUserQuestion. AskUserQuestion is disabled for this session", so no hook
// sees one (test/integration/qualitySignals.test.ts drives its hook payloads instead).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobIdFor } from '../../src/common/jobs.js';
import { assertClaudeRuns, claudeEnv, runClaude, type ClaudeResult } from '../helpers/claudeCli.js';
import { configuredSandbox } from '../helpers/configuredSandbox.js';
import { RECAP, removeSandbox, runCli, startDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { ATTACK_THRESHOLD, SECTION_TEXT, TRIP_PROMPTS } from '../helpers/gateAttack.js';
import { answer, bash, MockAnthropic, read } from '../helpers/mockAnthropic.js';
import { OtlpReceiver, otlpMetrics, points, type OtlpRequest } from '../helpers/otlpReceiver.js';
import { launchChromium, openUi } from '../helpers/uiPage.js';

const TEST_MS = 120_000;
const GIST = 'Gist: Planned the error reports of the config parser in src/parser.ts; nothing changed yet.';
/** Session 2's prompt: a correction cue, and words of the summary's subject (the backoff's cap and its delay). */
const CORRECTION = 'No, that is wrong: the backoff delay is capped at 20 seconds, and it gives up after 5 attempts.';
const SUMMARY = [GIST, ...Object.entries(SECTION_TEXT).map(([heading, text]) => `## ${heading}\n${text}`), '## Files\n- ref src/parser.ts — the config parser under change'].join(
  '\n\n',
);

describe('the memory quality signals of the real Claude Code, on the audit page and over OTLP', () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  let mock: MockAnthropic;
  let collector: OtlpReceiver;
  let browser: Browser;
  let env: NodeJS.ProcessEnv;
  let job: string;
  let parser: string;
  let summarySeq: number | undefined;
  let second: ClaudeResult | undefined;

  beforeAll(async () => {
    assertClaudeRuns();
    box = configuredSandbox(`TOKEN_THRESHOLD=${ATTACK_THRESHOLD}\n`, { recap: RECAP });
    job = jobIdFor(box.project);
    mkdirSync(join(box.project, 'src'));
    parser = join(box.project, 'src', 'parser.ts');
    writeFileSync(parser, 'export function parse(text: string) {\n  return text.split("\\n");\n}\n');
    collector = await OtlpReceiver.start(0);
    daemon = await startDaemon(box, { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_METRIC_EXPORT_INTERVAL: '200' });
    const installed = await runCli(box, ['install', 'claude']);
    expect(installed.code, installed.stderr).toBe(0);
    mock = await MockAnthropic.start();
    env = claudeEnv(box.env, mock);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await mock?.close();
    await daemon?.stop();
    await collector?.close();
    if (box) removeSandbox(box);
  });

  it(
    'session 1 trips the gate and submits a summary that names src/parser.ts; session 2 is corrected and reads it first',
    async () => {
      mock.script(bash(`${join(box.data, 'bin', 'recap')} submit <<'EOF'\n${SUMMARY}\nEOF`, 'submit the summary'), answer('Done.'));
      await runClaude(box.project, env, TRIP_PROMPTS.join('\n\n'), mock);
      const submitted = mock.toolResult(0);
      expect(submitted?.isError, mock.describe()).toBe(false);
      expect(submitted!.text).toContain('accepted');
      const chain = JSON.parse((await runCli(box, ['chain', '--json'], { cwd: box.project })).stdout) as { entries: { seq: number; refs?: { path: string }[] }[] };
      expect(chain.entries).toHaveLength(1);
      expect(chain.entries[0]!.refs).toEqual([expect.objectContaining({ path: 'src/parser.ts' })]);
      summarySeq = chain.entries[0]!.seq;

      const before = mock.turnsTaken;
      mock.script(read(parser), answer('The parser splits lines.'));
      second = await runClaude(box.project, env, CORRECTION, mock);
      const readResult = mock.toolResult(before);
      expect(readResult?.isError, mock.describe()).toBe(false);
      expect(readResult!.text).toContain('export function parse');
    },
    TEST_MS,
  );

  it(
    'the audit page shows one rediscovery of src/parser.ts and one correction for that summary, by session 2',
    async () => {
      expect(second, 'both sessions must have run').toBeDefined();
      const ui = await openUi(box);
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(error.message));
      await page.goto(ui.url);
      await page.goto(`${ui.origin}/#/job/${encodeURIComponent(job)}`);
      // The session's first calls are recorded at its end: the page shows them when they come.
      const cell = page.locator(`.quality-table tr[data-seq="${summarySeq}"] td[data-signal="rediscoveries"][data-count="1"]`);
      await cell.waitFor({ timeout: 15_000 });
      expect(await cell.locator('.count').textContent()).toBe('1');
      expect(await cell.getAttribute('title')).toBe(`${parser} (session ${second!.json.session_id})`);
      const corrections = page.locator(`.quality-table tr[data-seq="${summarySeq}"] td[data-signal="corrections"]`);
      expect(await corrections.getAttribute('data-count')).toBe('1');
      expect(await corrections.getAttribute('title')).toBe(`"${CORRECTION}" (session ${second!.json.session_id})`);
      expect(await page.locator('[data-total="rediscoveries"]').textContent()).toBe('1 files rediscovered');
      expect(await page.locator('[data-total="corrections"]').textContent()).toBe('1 corrections');
      expect(problems).toEqual([]);
      await context.close();
    },
    TEST_MS,
  );

  it(
    'an OTLP/HTTP collector receives recap.quality.rediscoveries and recap.quality.corrections = 1 for the job',
    async () => {
      expect(second, 'both sessions must have run').toBeDefined();
      const pointsOf = (request: OtlpRequest, name: string) => {
        if (request.path !== '/v1/metrics') return undefined;
        const metric = otlpMetrics(request).find((m) => m.name === name);
        return metric === undefined ? undefined : points(metric);
      };
      for (const name of ['recap.quality.rediscoveries', 'recap.quality.corrections']) {
        const exported = await collector.waitFor((r) => pointsOf(r, name)?.some((p) => p.attributes.job === job && p.value === 1) === true);
        expect(pointsOf(exported, name), name).toEqual([{ attributes: { job }, value: 1 }]);
      }
    },
    TEST_MS,
  );
});
