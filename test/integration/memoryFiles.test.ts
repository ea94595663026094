// A summary's `## Files` section and gist against the real daemon, driven through the real
// CLI and the raw socket: each bad reference is rejected with its own message while the gate
// stays tripped, and a corrected summary is the way out; the memory hands over the files as
// they are now (changed, or refused when a file became a link into recap's data); a long
// chain's memory is the newest summaries whole and an index within its budget.
import { linkSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jobIdFor } from '../../src/common/jobs.js';
import { RawClient, removedAfterEach, runCli, sandbox, startDaemon } from '../helpers/daemon.js';
import { goodSummary, notes, prose } from '../helpers/text.js';

type Entry = { seq: number; gist?: string; gistBy?: string; refs?: { mode: string; path: string; start?: number; end?: number; why: string; sha256: string; tokens: number }[] };

const { boxes, daemons, clients } = removedAfterEach();

/** The `words` encoding, counted here independently of recap: words x 1.3, truncated. */
const words = (text: string) => Math.floor(text.split(/\s+/u).filter((w) => w !== '').length * 1.3);

async function setup(lines: string[]) {
  const box = sandbox();
  boxes.push(box);
  writeFileSync(box.config, `${lines.join('\n')}\n`);
  const daemon = await startDaemon(box);
  daemons.push(daemon);
  const client = await RawClient.connect(box.socket);
  clients.push(client);
  const job = jobIdFor(box.project);
  let id = 1;
  const op = async <T>(request: Record<string, unknown>): Promise<T> => {
    const response = await client.request({ id: id++, cwd: box.project, ...request });
    expect(response.error, JSON.stringify(response.error)).toBeUndefined();
    return response.result as T;
  };
  const file = (path: string, text: string) => {
    mkdirSync(join(box.project, path, '..'), { recursive: true });
    writeFileSync(join(box.project, path), text);
  };
  return {
    box,
    job,
    op,
    file,
    /** `recap submit` as the agent runs it in the project: exit code and the problems, one per line. */
    submit: async (text: string) => {
      const result = await runCli(box, ['submit'], { input: text });
      return { code: result.code, problems: result.stderr.split('\n').filter((l) => l.trim() !== '' && l !== 'rejected:') };
    },
    tripped: async () => (await op<{ tripped: boolean }>({ op: 'status', job })).tripped,
    readAllowed: async () => (await op<{ allow: boolean }>({ op: 'check', job, tool: 'Read', input: { file_path: join(box.project, 'src/app.ts') } })).allow,
    context: async () => (await op<{ text: string }>({ op: 'context', job })).text,
    chain: async () => (await op<{ entries: Entry[] }>({ op: 'chain', job })).entries,
  };
}

const APP = ['export function fetchAll() {', '  for (let i = 0; i < 3; i += 1) {', '    retry(i);', '  }', '}', ''].join('\n');

describe('the Files section', () => {
  it('rejects each bad reference with its own message, keeps the gate shut, and accepts the corrected summary', async () => {
    const h = await setup(['TOKEN_THRESHOLD=20', 'REF_READ_BUDGET=300']);
    h.file('src/app.ts', APP);
    h.file('big.txt', `${'a line of the large generated file that nobody should hand over whole\n'.repeat(200)}`);
    writeFileSync(join(h.box.dir, 'outside.txt'), 'outside the project\n');
    symlinkSync(h.box.data, join(h.box.project, 'data-link'));
    // A second name for a file: it could as well be one of recap's.
    h.file('plan.txt', 'the plan\n');
    linkSync(join(h.box.project, 'plan.txt'), join(h.box.project, 'plan-again.txt'));
    await h.op({ op: 'record', job: h.job, kind: 'prompt', text: prose(3) });
    expect(await h.tripped()).toBe(true);

    const bad = [
      '## Files',
      '- read ../outside.txt — a file of another folder',
      '- read data-link/LOG — where recap keeps its log',
      '- ref src/gone.ts — a file that is not there',
      '- read src/app.ts:4-40 — past the end of the file',
      '- read big.txt — all of it',
      '- read plan-again.txt — the plan under another name',
    ].join('\n');
    const rejected = await h.submit(`${goodSummary()}\n\n${bad}`);
    expect(rejected.code).toBe(2);
    expect(rejected.problems).toEqual([
      "../outside.txt lies outside the job's project: name only files inside it",
      expect.stringMatching(/^data-link\/LOG cannot be named: .*recap/),
      "src/gone.ts does not exist in the project: name a file that exists, relative to the project's folder",
      "src/app.ts:4-40 ends after the file's last line (5): name lines that exist",
      'plan-again.txt cannot be named: it has other names (hard links), so recap cannot tell it is not one of its own files: name it as a ref',
      expect.stringMatching(
        /^the read entries of Files need \d+ tokens; at most 300 \(REF_READ_BUDGET\) are handed over: narrow them to line ranges, or make some refs, e\.g\. big\.txt \(\d+ tokens\)$/,
      ),
    ]);
    expect(await h.tripped()).toBe(true);
    expect(await h.readAllowed()).toBe(false);

    const good = await h.submit(`${goodSummary()}\n\n## Files\n- read src/app.ts:2-4 — the retry loop under change\n- ref big.txt — the generated fixture`);
    expect(good).toEqual({ code: 0, problems: [] });
    expect(await h.tripped()).toBe(false);
    expect(await h.readAllowed()).toBe(true);
    const [entry] = await h.chain();
    expect(entry!.gistBy).toBe('agent');
    expect(entry!.refs).toEqual([
      { mode: 'read', path: 'src/app.ts', start: 2, end: 4, why: 'the retry loop under change', sha256: expect.stringMatching(/^[0-9a-f]{64}$/), tokens: expect.any(Number) },
      { mode: 'ref', path: 'big.txt', why: 'the generated fixture', sha256: expect.stringMatching(/^[0-9a-f]{64}$/), tokens: 0 },
    ]);
  });

  it("hands a new session the files as they are now: a changed range marked changed, a file turned into a link to recap's log refused", async () => {
    const h = await setup(['TOKEN_THRESHOLD=20']);
    h.file('src/app.ts', APP);
    h.file('notes.txt', 'the plan: retry three times, then give up\n');
    h.file('docs/plan.md', '# plan\n');
    await h.op({ op: 'record', job: h.job, kind: 'prompt', text: prose(3) });
    const files = '## Files\n- read src/app.ts:2-4 — the retry loop\n- read notes.txt — the plan\n- ref docs/plan.md — where the plan lives';
    expect(await h.submit(`${goodSummary()}\n\n${files}`)).toEqual({ code: 0, problems: [] });

    const before = await h.context();
    expect(before).toContain('- read src/app.ts:2-4 — the retry loop [unchanged since the summary]\n```\n  for (let i = 0; i < 3; i += 1) {\n    retry(i);\n  }\n```');

    h.file('src/app.ts', APP.replace('retry(i)', 'retryWithBackoff(i, 250)'));
    rmSync(join(h.box.project, 'notes.txt'));
    const logFile = readdirSync(h.box.data, { recursive: true, withFileTypes: true }).find((e) => e.isFile() && e.name === 'CURRENT')!;
    symlinkSync(join(logFile.parentPath, logFile.name), join(h.box.project, 'notes.txt'));

    const after = await h.context();
    expect(after).toContain(
      '- read src/app.ts:2-4 — the retry loop [changed since the summary: its contents now]\n```\n  for (let i = 0; i < 3; i += 1) {\n    retryWithBackoff(i, 250);\n  }\n```',
    );
    expect(after).toMatch(/- read notes\.txt — the plan \[not handed over: [^\]]*recap[^\]]*\]/);
    expect(after).not.toMatch(/MANIFEST-/);
    expect(after).toContain('- ref docs/plan.md — where the plan lives');
  });
});

describe('a long chain', () => {
  it('gives 200 summaries an index within INDEX_BUDGET, newest first, after the newest summaries whole', async () => {
    const h = await setup([
      'TOKEN_ENCODING=words',
      'TOKEN_THRESHOLD=1000000',
      'REQUIRED_SECTIONS=("Notes")',
      'MIN_TOKENS_PER_SECTION=1',
      'SUMMARY_MIN_TOKENS=1',
      'SUMMARY_GROUNDING=off',
      'CONTEXT_BUDGET=300',
      'INDEX_BUDGET=400',
    ]);
    for (let i = 1; i <= 200; i += 1) {
      await h.op({ op: 'record', job: h.job, kind: 'prompt', text: `prompt ${i}: ${prose(1)}` });
      const text = `Gist: step ${i} moved the parser's error report into module number ${i}\n\n## Notes\nentry-${i} ${notes(2, i * 2)}`;
      const answer = await h.op<{ accepted: boolean; problems?: string[] }>({ op: 'submit', job: h.job, text });
      if (!answer.accepted) expect.fail(`summary ${i} was rejected: ${answer.problems?.join('; ')}`);
    }
    const memory = await h.context();
    const whole = [...memory.matchAll(/^### Summary #(\d+),/gm)].length;
    expect(whole).toBeGreaterThan(0);
    expect(memory).toContain('entry-200 ');
    const index = memory.slice(memory.indexOf('Index of the '));
    expect(words(index)).toBeLessThanOrEqual(400);
    const listed = [...index.matchAll(/^#\d+ \d{4}-\d\d-\d\d — step (\d+) moved/gm)].map((m) => Number(m[1]));
    expect(listed[0]).toBe(200 - whole);
    expect(listed).toEqual(listed.map((_, k) => 200 - whole - k));
    expect(index).toMatch(new RegExp(`\\(${200 - whole - listed.length} older not listed: .* chain lists them all\\.\\)$`));
  }, 120_000);
});
