// recap eval --probes against a scripted model on 127.0.0.1: the key only in the Authorization
// header, the answering request holding the summary and not the window, the scores printed per
// window and per kind and written to a file; nothing sent without the user's own config, a
// project file that sets the model's URL refused, and a failing model named with what to do.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeSandbox, runCli, sandboxWithDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { ProbeModel, type Script } from '../helpers/probeModel.js';
import { SMALL_CORPUS } from '../helpers/summaryCorpus.js';
import { goodSummary, prose } from '../helpers/text.js';

const JOB = 'alpha';
const KEY = 'sk-test-7f3a91c2';
/** Said in the window only: the answering request must not hold it. */
const WINDOW_ONLY = 'Marker zebra-quartz-17 was said in the window.';

const SCRIPT: Script = {
  questions: JSON.stringify({
    questions: [
      { kind: 'recall', question: 'What did the parser fail on?' },
      { kind: 'artifacts', question: 'Which file holds the grammar?' },
      { kind: 'next', question: 'What is next?' },
      { kind: 'directives', question: 'What did the user forbid?' },
    ],
  }),
  answers: JSON.stringify({ answers: [1, 2, 3, 4].map((id) => ({ id, answer: `answer ${id}` })) }),
  // Fenced, as some models answer: read all the same.
  judge: '```json\n' + JSON.stringify({ scores: [5, 4, 3, 0].map((score, i) => ({ id: i + 1, score, why: `judged ${score}` })) }) + '\n```',
};

let box: Sandbox;
let daemon: DaemonProcess;
let log: string;
let model: ProbeModel | undefined;

const modelConfig = (url: string) => `EVAL_MODEL_URL="${url}"\nEVAL_MODEL_KEY="${KEY}"\nEVAL_MODEL="judge-small"\n`;

beforeAll(async () => {
  ({ box, daemon } = await sandboxWithDaemon());
  for (let round = 0; round < 2; round += 1) {
    await runCli(box, ['record', '--job', JOB, '--text', `${prose(15)} ${WINDOW_ONLY}`]);
    await runCli(box, ['record', '--job', JOB, '--text', `${prose(14)} Round ${round}.`]);
    const submitted = await runCli(box, ['submit', '--job', JOB], { input: goodSummary(undefined, round) });
    if (submitted.code !== 0) throw new Error(submitted.stderr);
  }
  log = join(box.dir, 'log.jsonl');
  await runCli(box, ['export', '--out', log]);
}, 60_000);

afterEach(async () => {
  await model?.stop();
  model = undefined;
  writeFileSync(box.config, '');
  rmSync(join(box.project, '.recap'), { recursive: true, force: true });
});

afterAll(() => closeSandbox(box, daemon));

describe('recap eval --probes', () => {
  it('asks the model of each window, prints the scores per window and per kind, and writes them to --out', async () => {
    model = await ProbeModel.start(SCRIPT);
    writeFileSync(box.config, modelConfig(model.url));
    const out = join(box.dir, 'scores.json');
    const { code, stdout, stderr } = await runCli(box, ['eval', '--log', log, '--probes', '--out', out]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain(`Probe scores from judge-small at ${model.url}`);
    expect(stdout).toMatch(/^ +recall +artifacts +next +directives +score$/m);
    expect(stdout).toMatch(new RegExp(`^${JOB}#1 +1\\.00 +0\\.80 +0\\.60 +0\\.00 +0\\.60$`, 'm'));
    expect(stdout).toMatch(new RegExp(`^${JOB}#2 +1\\.00 +0\\.80 +0\\.60 +0\\.00 +0\\.60$`, 'm'));
    expect(stdout).toMatch(/^all +1\.00 +0\.80 +0\.60 +0\.00 +0\.60$/m);
    const written = JSON.parse(readFileSync(out, 'utf8')) as { score: number; windows: { name: string; probes: { kind: string; answer: string; score: number; why: string }[] }[] };
    expect(written.score).toBeCloseTo(0.6);
    expect(written.windows[0]!.probes[1]).toEqual({ kind: 'artifacts', question: 'Which file holds the grammar?', answer: 'answer 2', score: 4, why: 'judged 4' });
    expect(`${stdout}${readFileSync(out, 'utf8')}`).not.toContain(KEY);
  });

  it('sends the key in the Authorization header only, and the summary but never the window to the answering step', async () => {
    model = await ProbeModel.start(SCRIPT);
    writeFileSync(box.config, modelConfig(model.url));
    await runCli(box, ['eval', '--log', log, '--probes', '--out', join(box.dir, 'scores2.json')]);
    expect(model.requests.map((r) => r.step)).toEqual(['questions', 'answers', 'judge', 'questions', 'answers', 'judge']);
    for (const request of model.requests) {
      expect(request).toMatchObject({ url: '/v1/chat/completions', model: 'judge-small' });
      expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(request.text).not.toContain(KEY);
    }
    const [questions, answers, judge] = model.requests;
    expect(questions!.text).toContain(WINDOW_ONLY);
    expect(judge!.text).toContain(WINDOW_ONLY);
    expect(answers!.text).toContain(goodSummary(undefined, 0).split('\n').at(-1));
    expect(answers!.text).toContain('1. What did the parser fail on?');
    expect(answers!.text).not.toContain(WINDOW_ONLY);
  });

  it('writes beside the log when --out does not say', async () => {
    model = await ProbeModel.start(SCRIPT);
    writeFileSync(box.config, modelConfig(model.url));
    expect((await runCli(box, ['eval', '--log', log, '--probes'])).stdout).toContain(`Every question, answer and judgement: ${log}.probes.json`);
    expect(existsSync(`${log}.probes.json`)).toBe(true);
  });

  it('sends nothing without the model in the user config: it says which keys to set and where, and exits 2', async () => {
    model = await ProbeModel.start(SCRIPT);
    const { code, stdout, stderr } = await runCli(box, ['eval', '--log', log, '--probes', '--out', join(box.dir, 'none.json')]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      `recap: --probes asks a model you choose, and none is set: put EVAL_MODEL_URL, EVAL_MODEL_KEY, EVAL_MODEL in ${box.config} (EVAL_MODEL_URL="https://host/v1", an OpenAI-compatible endpoint; EVAL_MODEL_KEY, its key; EVAL_MODEL, the model's name); nothing was sent\n`,
    );
    expect(model.requests).toEqual([]);
    expect(existsSync(join(box.dir, 'none.json'))).toBe(false);
  });

  it("refuses a project's file that sets the model, and sends it nothing; the user's file still works", async () => {
    model = await ProbeModel.start(SCRIPT);
    const projectConfig = join(box.project, '.recap', 'config.conf');
    mkdirSync(join(box.project, '.recap'), { recursive: true });
    writeFileSync(projectConfig, modelConfig(model.url));
    const checked = await runCli(box, ['config', 'check']);
    expect(checked.code).toBe(1);
    expect(checked.stdout + checked.stderr).toContain(`${projectConfig}:1: EVAL_MODEL_URL: only your own config file (${box.config}) may set EVAL_MODEL_URL`);
    const refused = await runCli(box, ['eval', '--log', log, '--probes', '--out', join(box.dir, 'p.json')]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`put EVAL_MODEL_URL, EVAL_MODEL_KEY, EVAL_MODEL in ${box.config}`);
    expect(model.requests).toEqual([]);
    // The way that is allowed: the same lines in the user's own file, which the gate's configuration ignores.
    writeFileSync(box.config, modelConfig(model.url));
    expect(await runCli(box, ['config', 'check', box.config])).toMatchObject({ code: 0 });
    expect(await runCli(box, ['eval', '--log', log, '--probes', '--out', join(box.dir, 'p.json')])).toMatchObject({ code: 0 });
    expect(model.requests).toHaveLength(6);
  });

  it("asks of the corpus's genuine cases it accepts, each named by its file", async () => {
    model = await ProbeModel.start(SCRIPT);
    writeFileSync(box.config, modelConfig(model.url));
    const { stdout } = await runCli(box, ['eval', '--corpus', SMALL_CORPUS, '--probes', '--out', join(box.dir, 'corpus.json')]);
    expect(stdout).toContain('8 cases (4 genuine, 4 junk)');
    expect(stdout).toMatch(/^genuine\/legal-saas-contract\.md +1\.00 +0\.80 +0\.60 +0\.00 +0\.60$/m);
    // The genuine case the rules reject has no memory to ask of.
    expect(stdout).not.toContain('genuine/research-wrong-window.md  ');
    expect(model.requests).toHaveLength(9);
  });

  it('names a model that refuses the key, with what to check, and no stack or key', async () => {
    model = await ProbeModel.start({ ...SCRIPT, status: 401 });
    writeFileSync(box.config, modelConfig(model.url));
    const { code, stderr } = await runCli(box, ['eval', '--log', log, '--probes', '--out', join(box.dir, 'e.json')]);
    expect(code).toBe(1);
    expect(stderr).toBe(`recap: the model at ${model.url} failed the questions for ${JOB}#1: it answered HTTP 401; check EVAL_MODEL_KEY; the scores so far were not written\n`);
    // A refused key is not tried again.
    expect(model.requests).toHaveLength(1);
  });

  it('names a reply that is not the JSON asked for', async () => {
    model = await ProbeModel.start({ ...SCRIPT, answers: 'I cannot answer that.' });
    writeFileSync(box.config, modelConfig(model.url));
    const { code, stderr } = await runCli(box, ['eval', '--log', log, '--probes', '--out', join(box.dir, 'e.json')]);
    expect(code).toBe(1);
    expect(stderr).toBe(
      `recap: the model's answer to the answers for ${JOB}#1 could not be used: its reply is not JSON (it began: "I cannot answer that."); it was asked for {"answers":[{"id","answer"}]}; try again, or another EVAL_MODEL\n`,
    );
  });
});
