// The memory quality signals against the real daemon, from scripted Claude Code hooks on the
// raw socket: a summary that names a file and records a decision; a next session that reads
// the file first, asks the decided question again and is corrected in its first prompt; a
// session after it that does none of that. `recap report --quality` shows each signal, and
// the tokens from the summary to the next trip.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobIdFor } from '../../src/common/jobs.js';
import { DEFAULT_SECTIONS } from '../../src/events/config.js';
import { FIRST_CALLS } from '../../src/events/firstCalls.js';
import type { JobQuality } from '../../src/events/qualitySignals.js';
import { RawClient, removeSandbox, runCli, sandbox, startDaemon, type Sandbox } from '../helpers/daemon.js';
import { OtlpReceiver, otlpMetrics, points, type OtlpRequest } from '../helpers/otlpReceiver.js';
import { goodSummary, prose } from '../helpers/text.js';

type Line = { seq: number; type: string; data: Record<string, unknown> };

const DECISION = '- Use a hand-written parser for the config loader — a library would pull in YAML support nobody asked for';
const QUESTION = 'Which parser should the config loader use: a hand-written one or a library?';

/** A sandbox whose gate trips at 20 tokens, its project holding src/parser.ts and README.md, its daemon started and connected. */
async function started(env: NodeJS.ProcessEnv = {}) {
  const box = sandbox();
  writeFileSync(box.config, 'TOKEN_THRESHOLD=20\n');
  mkdirSync(join(box.project, 'src'));
  writeFileSync(join(box.project, 'src', 'parser.ts'), 'export function parse(text: string) {\n  return text.split("\\n");\n}\n');
  writeFileSync(join(box.project, 'README.md'), '# the project\n');
  const daemon = await startDaemon(box, env);
  const client = await RawClient.connect(box.socket);
  let nextId = 1;
  async function op<T>(request: Record<string, unknown>): Promise<T> {
    const response = await client.request({ id: nextId++, ...request });
    expect(response.error, JSON.stringify(response.error)).toBeUndefined();
    return response.result as T;
  }
  const hook = (session: string, payload: Record<string, unknown>) =>
    op({ op: 'hook', agent: 'claude', payload: { session_id: session, transcript_path: `/tmp/none/${session}.jsonl`, cwd: box.project, ...payload } });
  const read = (session: string, path: string) => hook(session, { hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path: path }, tool_use_id: `t${nextId}` });
  /** Session A does the work and summarizes it: the summary names src/parser.ts and records the decision. */
  const summarized = async () => {
    await hook('A', { hook_event_name: 'SessionStart', source: 'startup' });
    await hook('A', { hook_event_name: 'UserPromptSubmit', prompt: prose(3) });
    const summary = goodSummary(DEFAULT_SECTIONS).replace('## Questions & Decisions\n', () => `## Questions & Decisions\n${DECISION}\n`);
    const submitted = await runCli(box, ['submit'], { input: `${summary}\n\n## Files\n- ref src/parser.ts — the config parser under change\n` });
    expect(submitted.code, submitted.stderr).toBe(0);
  };
  const stop = async () => {
    client.close();
    await daemon.stop();
    removeSandbox(box);
  };
  return { box, job: jobIdFor(box.project), op, hook, read, summarized, stop };
}

describe('memory quality signals', () => {
  let box: Sandbox;
  let job: string;
  let quality: JobQuality;
  let op: Awaited<ReturnType<typeof started>>['op'];
  let hook: Awaited<ReturnType<typeof started>>['hook'];
  let read: Awaited<ReturnType<typeof started>>['read'];
  let stop: (() => Promise<void>) | undefined;
  const asked = (session: string, question: string) =>
    hook(session, {
      hook_event_name: 'PostToolUse',
      tool_name: 'AskUserQuestion',
      tool_use_id: `q-${question.length}`,
      tool_input: { questions: [{ question, header: 'Q', options: [{ label: 'a', description: 'a' }], multiSelect: false }] },
      tool_response: { answers: { [question]: 'a' } },
    });
  const events = (types: string[], wait = 0) => op<{ events: Line[] }>({ op: 'events', job, types, wait });

  beforeAll(async () => {
    const h = await started();
    ({ box, job, op, hook, read, stop } = h);
    await h.summarized();

    // Session B reads the named file first, asks the decided question again, and is corrected.
    await hook('B', { hook_event_name: 'SessionStart', source: 'startup' });
    await hook('B', { hook_event_name: 'PreToolUse', tool_name: 'Grep', tool_input: { pattern: 'parse', path: join(box.project, 'docs') }, tool_use_id: 'g1' });
    await read('B', join(box.project, 'src', 'parser.ts'));
    await asked('B', QUESTION);
    await hook('B', { hook_event_name: 'UserPromptSubmit', prompt: 'No, that is wrong: the parser must report every error at once, it never stops at the first one.' });
    await hook('B', { hook_event_name: 'SessionEnd', reason: 'other' });

    // Session C reads another file, asks something no summary answered, and is not corrected.
    await hook('C', { hook_event_name: 'SessionStart', source: 'startup' });
    await read('C', join(box.project, 'README.md'));
    await asked('C', 'Which colour should the status badge have?');
    await hook('C', { hook_event_name: 'UserPromptSubmit', prompt: 'Now add a test for empty values.' });
    await hook('C', { hook_event_name: 'SessionEnd', reason: 'other' });

    const run = await runCli(box, ['report', '--quality', '--json']);
    expect(run.code, run.stderr).toBe(0);
    quality = (JSON.parse(run.stdout) as { quality: JobQuality[] }).quality.find((q) => q.job === job)!;
  });
  afterAll(async () => {
    await stop?.();
  });

  const summaryOf = () => {
    expect(quality.summaries).toHaveLength(1);
    return quality.summaries[0]!;
  };

  it('counts the sessions that started after the summary', () => {
    expect(summaryOf().sessions).toBe(2);
  });

  it('records a session’s first tool calls once, at its end, as kinds and absolute paths', async () => {
    const recorded = (await events(['FirstCallsRecorded'])).events.filter((e) => e.data.session === 'B');
    expect(recorded).toHaveLength(1);
    expect(recorded[0]!.data.calls).toEqual([
      { kind: 'search', paths: [join(box.project, 'docs')] },
      { kind: 'read', paths: [join(box.project, 'src', 'parser.ts')] },
    ]);
  });

  it('a session that reads a named file in its first calls is one rediscovery; one that does not is none', () => {
    expect(summaryOf().rediscoveries).toEqual([{ session: 'B', file: join(box.project, 'src', 'parser.ts') }]);
  });

  it('a question whose answer is a recorded decision is one re-asked question; another question is none', () => {
    expect(summaryOf().reasked).toEqual([{ session: 'B', question: QUESTION, answer: expect.stringContaining('Use a hand-written parser for the config loader') }]);
  });

  it('an early prompt that corrects the summary’s subject is one correction; an ordinary prompt is none', () => {
    expect(summaryOf().corrections).toEqual([{ session: 'B', prompt: expect.stringMatching(/^No, that is wrong: the parser/) }]);
  });

  it('tokens per task: the interactions and counted tokens from the summary to the next trip', async () => {
    const trips = (await events(['GateTripped'])).events;
    const accepted = (await events(['SummaryAccepted'])).events[0]!;
    const next = trips.find((t) => t.seq > accepted.seq)!;
    const between = (await events(['InteractionRecorded'])).events.filter((e) => e.seq > accepted.seq && e.seq < next.seq);
    expect(summaryOf().task).toEqual({ interactions: between.length, countedTokens: next.data.unsummarizedTokens, ended: 'trip' });
    expect(summaryOf().task.countedTokens).toBeGreaterThan(0);
    expect(quality.totals).toMatchObject({ summaries: 1, sessions: 2, rediscoveries: 1, reasked: 1, corrections: 1, tasks: 1, taskTokens: next.data.unsummarizedTokens });
  });

  it('recap report --quality prints each signal under its summary', async () => {
    const run = await runCli(box, ['report', '--quality', '--job', job]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`job ${job}: 1 summary, 2 sessions after them; 1 file rediscovered, 1 question re-asked, 1 correction`);
    expect(run.stdout).toContain(`rediscovered  ${join(box.project, 'src', 'parser.ts')} (session B)`);
    expect(run.stdout).toContain(`re-asked      ${JSON.stringify(QUESTION)}`);
    expect(run.stdout).toMatch(/correction {4}"No, that is wrong/);
  });

  it('recap report --quality with --session is refused, saying what to leave out', async () => {
    const run = await runCli(box, ['report', '--quality', '--session', 'B']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('leave out --session and --since');
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it(`records a session's first ${FIRST_CALLS} calls when the last of them is judged, with no end, and no more after`, async () => {
    let from = (await op<{ lastSeq: number }>({ op: 'events', job, limit: 1 })).lastSeq + 1;
    for (let i = 0; i < FIRST_CALLS + 2; i += 1) await read('D', join(box.project, `file${i}.ts`));
    // The append is not awaited by the hook: the log is followed until it comes.
    let recorded: Line | undefined;
    while (recorded === undefined) {
      const page = await op<{ events: Line[]; next: number | null }>({ op: 'events', job, types: ['FirstCallsRecorded'], fromSeq: from, wait: 5000 });
      recorded = page.events.find((e) => e.data.session === 'D');
      from = page.next ?? from;
    }
    expect(recorded.data.calls).toHaveLength(FIRST_CALLS);
    // Its end records nothing more: the session's first calls are on record.
    await hook('D', { hook_event_name: 'SessionEnd', reason: 'other' });
    expect((await events(['FirstCallsRecorded'])).events.filter((e) => e.data.session === 'D')).toHaveLength(1);
  });
});

describe('memory quality signals over OTLP/HTTP', () => {
  let collector: OtlpReceiver | undefined;
  let stop: (() => Promise<void>) | undefined;
  afterAll(async () => {
    await stop?.();
    await collector?.close();
  });

  const rediscoveries = (request: OtlpRequest) => {
    if (request.path !== '/v1/metrics') return undefined;
    const metric = otlpMetrics(request).find((m) => m.name === 'recap.quality.rediscoveries');
    return metric === undefined ? undefined : points(metric);
  };

  it("exports each job's rediscoveries as recap.quality.rediscoveries", async () => {
    collector = await OtlpReceiver.start(0);
    const h = await started({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_METRIC_EXPORT_INTERVAL: '200' });
    stop = h.stop;
    await h.summarized();
    await h.hook('B', { hook_event_name: 'SessionStart', source: 'startup' });
    await h.read('B', join(h.box.project, 'src', 'parser.ts'));
    await h.hook('B', { hook_event_name: 'SessionEnd', reason: 'other' });
    const exported = await collector.waitFor((r) => rediscoveries(r)?.some((p) => p.value === 1) === true);
    expect(rediscoveries(exported)).toEqual([{ attributes: { job: h.job }, value: 1 }]);
  });
});
