// recap eval --probes' pure parts: the model's replies read (and refused with what was wrong),
// each kind scored as a share of the most, every kind weighing the same in a window's score;
// the answering request holds the summary and memory and never the window; and the model's
// keys are the user's own, refused in a project's config file.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readConfigFile } from '../../src/common/configLayers.js';
import { readEvalModel } from '../../src/common/evalModelConfig.js';
import { answersRequest, judgeRequest, questionsRequest } from '../../src/events/probePrompts.js';
import { ProbeReplyError, probeTotals, readAnswers, readQuestions, readScores, windowScore, type Probe, type ProbeWindow } from '../../src/events/probes.js';

const WINDOW: ProbeWindow = {
  name: 'a#1',
  interactions: [
    { seq: 3, kind: 'prompt', text: 'The parser crashes on a lone backslash in config.conf', redacted: false },
    { seq: 4, kind: 'prompt', text: 'secret words', redacted: true },
  ],
  calls: [{ seq: 5, text: 'read /work/p/docs/grammar.md' }],
  summary: 'Gist: the lone backslash is now an error with its line',
  memory: '#5 the memory index line',
};

const probe = (kind: Probe['kind'], score: number): Probe => ({ kind, question: 'q', answer: 'a', score, why: '' });

describe("the model's replies", () => {
  it('reads questions, from bare JSON or a fenced block', () => {
    const questions = [{ kind: 'recall', question: 'What crashed?' }];
    expect(readQuestions(JSON.stringify({ questions }))).toEqual(questions);
    expect(readQuestions(`\`\`\`json\n${JSON.stringify({ questions })}\n\`\`\``)).toEqual(questions);
  });

  it('refuses a reply that is not JSON, or a kind it was not asked for, saying what it was asked for', () => {
    expect(() => readQuestions('Sure! Here are questions')).toThrow(ProbeReplyError);
    expect(() => readQuestions('Sure! Here are questions')).toThrow(/not JSON .*asked for \{"questions"/);
    expect(() => readQuestions(JSON.stringify({ questions: [{ kind: 'trivia', question: 'x' }] }))).toThrow(/questions\.0\.kind/);
  });

  it('puts answers and scores in question order by id; one left out is "" or scores 0', () => {
    expect(
      readAnswers(
        JSON.stringify({
          answers: [
            { id: 2, answer: 'b' },
            { id: 1, answer: 'a' },
          ],
        }),
        3,
      ),
    ).toEqual(['a', 'b', '']);
    expect(readScores(JSON.stringify({ scores: [{ id: 2, score: 4, why: 'close' }] }), 2)).toEqual([
      { score: 0, why: 'not judged' },
      { score: 4, why: 'close' },
    ]);
    expect(() => readScores(JSON.stringify({ scores: [{ id: 1, score: 7 }] }), 1)).toThrow(ProbeReplyError);
  });
});

describe('scoring', () => {
  it('gives each kind its mean over the most (5), a kind not asked null, and weighs every kind asked the same', () => {
    const w = windowScore('a#1', [probe('recall', 5), probe('recall', 5), probe('recall', 5), probe('artifacts', 0)]);
    expect(w.byKind).toEqual({ recall: 1, artifacts: 0, next: null, directives: null });
    expect(w.score).toBe(0.5);
  });

  it('totals each kind over every question, and the score over the windows', () => {
    const totals = probeTotals([windowScore('a#1', [probe('next', 5)]), windowScore('a#2', [probe('next', 0), probe('directives', 5)])]);
    expect(totals.byKind).toEqual({ recall: null, artifacts: null, next: 0.5, directives: 1 });
    expect(totals.score).toBe(0.75);
    expect(probeTotals([]).score).toBeNull();
  });
});

describe('the requests', () => {
  const text = (messages: { content: string }[]) => messages.map((m) => m.content).join('\n');

  it('show the window to the questions and the judging, never a redacted text', () => {
    for (const request of [questionsRequest(WINDOW), judgeRequest(WINDOW, [{ kind: 'recall', question: 'What crashed?', answer: 'x' }])]) {
      expect(text(request)).toContain('lone backslash in config.conf');
      expect(text(request)).toContain('[#4 prompt] (its text was redacted)');
      expect(text(request)).toContain('[tool calls, as sampled]\n- read /work/p/docs/grammar.md');
      expect(text(request)).not.toContain('secret words');
    }
  });

  it('answer from the summary and memory alone: the window is not in that request', () => {
    const request = text(answersRequest(WINDOW, [{ kind: 'recall', question: 'What crashed?' }]));
    expect(request).toContain(WINDOW.summary);
    expect(request).toContain(WINDOW.memory);
    expect(request).toContain('1. What crashed?');
    expect(request).not.toContain('config.conf');
    expect(request).not.toContain('grammar.md');
  });
});

describe("the model's keys", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'recap-probes-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it("are read from the user's file, and are no part of the gate's configuration", () => {
    const user = file('user.conf', 'EVAL_MODEL_URL="http://127.0.0.1:9/v1/"\nEVAL_MODEL_KEY="${KEY}"\nEVAL_MODEL=small\nTOKEN_THRESHOLD=400\n');
    expect(readEvalModel(user, { KEY: 'k-1' })).toEqual({ ok: true, model: { url: 'http://127.0.0.1:9/v1', key: 'k-1', model: 'small' } });
    const read = readConfigFile(user, {}, user);
    expect(read.problems).toEqual([]);
    expect(read.layer.values).toEqual({ TOKEN_THRESHOLD: 400 });
  });

  it("are refused in a project's file, naming the line and the user's file", () => {
    const user = join(dir, 'user.conf');
    const project = file('project.conf', 'TOKEN_THRESHOLD=400\nEVAL_MODEL_URL="http://evil.example/v1"\n');
    expect(readConfigFile(project, {}, user).problems).toEqual([
      `${project}:2: EVAL_MODEL_URL: only your own config file (${user}) may set EVAL_MODEL_URL: a project's file could send your windows to any address; remove the line`,
    ]);
  });

  it('say which are missing and where to set them when the user set none', () => {
    const user = file('user.conf', 'EVAL_MODEL=small\n');
    const read = readEvalModel(user, {});
    expect(read.ok).toBe(false);
    expect(!read.ok && read.problem).toMatch(new RegExp(`^--probes asks a model you choose, and none is set: put EVAL_MODEL_URL, EVAL_MODEL_KEY in ${user} .*nothing was sent$`));
  });
});
