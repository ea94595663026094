// `recap amend N` and `recap redact N` on a real daemon with a real LevelDB: an amendment's
// text is the memory's and marks the summary superseded; a redacted summary's and prompt's
// words are gone from every command's output, the audit page, and every file under the data
// folder (its bytes read whole, before and after a restart), while `recap verify` passes and
// names the redaction.
import { readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeSandbox, runCli, sandboxWithDaemon, startDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { goodSummary, prose } from '../helpers/text.js';
import { openUi } from '../helpers/uiPage.js';

const JOB = 'edits';
/** Words that occur nowhere but where the test puts them. */
const SECRET = 'quokkafluxion';
const PROMPT_SECRET = 'zebracornial';
const AMENDED = 'platypusorama';

const withWord = (summary: string, word: string) => summary.replace('## Current State\n', `## Current State\nThe ${word} setting stays off until the next release. `);

function get(url: string, cookie: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { cookie } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.once('end', () => resolve(body));
    });
    req.once('error', reject);
    req.end();
  });
}

/** Every file under `dir` whose bytes hold `word`. */
function filesHolding(dir: string, word: string): string[] {
  const needle = Buffer.from(word);
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath, d.name))
    .filter((path) => readFileSync(path).includes(needle));
}

async function cli(box: Sandbox, args: string[], input?: string): Promise<string> {
  const run = await runCli(box, [...args, '--job', JOB], input === undefined ? {} : { input });
  expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
  return run.stdout;
}

describe('recap amend and recap redact', () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  let prompt: number;
  let first: number;
  let second: number;

  beforeAll(async () => {
    ({ box, daemon } = await sandboxWithDaemon());
    prompt = (JSON.parse(await cli(box, ['record', '--json', '--text', `${prose(3)} Keep the ${PROMPT_SECRET} token out of it.`])) as { seq: number }).seq;
    await cli(box, ['submit'], withWord(goodSummary(), SECRET));
    await cli(box, ['record', '--text', prose(2)]);
    await cli(box, ['submit'], goodSummary(undefined, 1));
    const chain = JSON.parse(await cli(box, ['chain', '--json'])) as { entries: { seq: number }[] };
    [first, second] = chain.entries.map((e) => e.seq) as [number, number];
  });
  afterAll(() => closeSandbox(box, daemon));

  it('amend: the corrected text is the memory, show says it was amended, --original prints the text it replaced, chain marks it superseded', async () => {
    // The corrected text on stdin, named as its help names it.
    const amended = JSON.parse(await cli(box, ['amend', String(second), '--json', '--file', '-'], withWord(goodSummary(undefined, 2), AMENDED))) as {
      amended: boolean;
      seq: number;
    };
    expect(amended.amended).toBe(true);
    expect(await cli(box, ['context'])).toContain(AMENDED);
    const shown = await cli(box, ['show', String(second)]);
    expect(shown).toContain(AMENDED);
    expect(shown).toContain(`amended: this is amendment #${amended.seq}`);
    const original = await cli(box, ['show', String(second), '--original']);
    expect(original).not.toContain(AMENDED);
    expect(original).toContain('this is the original text');
    expect(await cli(box, ['chain'])).toMatch(new RegExp(`^#${second} .*\\[superseded by amendment #${amended.seq}, `, 'm'));
  });

  it('amend: a text that is not a summary is rejected with its problems, and nothing is recorded', async () => {
    const run = await runCli(box, ['amend', String(second), '--job', JOB], { input: 'just a line' });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/missing section/);
    expect((await runCli(box, ['amend', String(prompt), '--job', JOB], { input: goodSummary(undefined, 3) })).stderr).toMatch(
      new RegExp(`#${prompt} is not a summary of job ${JOB}`),
    );
  });

  it("redact: the words leave every output, the page's API and every file of the data folder; verify passes and names it", async () => {
    expect(filesHolding(box.data, SECRET).length).toBeGreaterThan(0);
    const refused = await runCli(box, ['redact', String(first), '--job', JOB], { input: '' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/stdin is not a terminal .*--yes/);
    await cli(box, ['redact', String(first), '--yes', '--reason', 'held a password']);
    await cli(box, ['redact', String(prompt), '--yes']);

    const ui = await openUi(box);
    const outputs = [
      await cli(box, ['export']),
      await cli(box, ['show', String(first), '--json']),
      await cli(box, ['show', String(first), '--original']),
      await cli(box, ['chain', '--json']),
      await cli(box, ['context']),
      await cli(box, ['log', '--json']),
      await cli(box, ['log']),
      await cli(box, ['event', String(first)]),
      await cli(box, ['event', String(prompt)]),
      await get(`${ui.origin}/api/chain?job=${JOB}`, ui.cookie),
      await get(`${ui.origin}/api/job/moments?job=${JOB}&from=0&to=${Date.now() + 60_000}`, ui.cookie),
    ];
    for (const text of outputs) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(PROMPT_SECRET);
    }
    expect(await cli(box, ['show', String(first)])).toMatch(/redacted: .* \(held a password\); the original text is gone/);
    expect(await cli(box, ['chain'])).toMatch(new RegExp(`^#${first} .*\\[redacted `, 'm'));
    expect(filesHolding(box.data, SECRET)).toEqual([]);
    expect(filesHolding(box.data, PROMPT_SECRET)).toEqual([]);

    const verified = await cli(box, ['verify']);
    expect(verified).toMatch(/^intact: /);
    expect(verified).toMatch(new RegExp(`redacted: summary #${first} of job ${JOB}, on .*, reason: held a password`));
    expect(verified).toMatch(new RegExp(`redacted: interaction #${prompt} of job ${JOB}`));
  });

  it('after a restart the words are still nowhere in the data folder, the amendment is still in force and verify still passes', async () => {
    await runCli(box, ['stop']);
    await daemon.exited;
    daemon = await startDaemon(box);
    expect(await cli(box, ['context'])).toContain(AMENDED);
    expect(await cli(box, ['verify'])).toMatch(/^intact: /);
    expect(filesHolding(box.data, SECRET)).toEqual([]);
    expect(filesHolding(box.data, PROMPT_SECRET)).toEqual([]);
  });
});
