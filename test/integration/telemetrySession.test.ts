// A session's end exported over OTLP/HTTP by the real daemon: its tokens per model as the
// recap.session.tokens counter, its tool calls, and a recap.SessionEnded log record whose
// attributes hold the figures per model and per agent.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { trackedSandboxes } from '../helpers/daemon.js';
import { hookCommands, runHookCommand } from '../helpers/hookCommand.js';
import { attributes, OtlpReceiver, otlpLogRecords, otlpMetrics, points, type OtlpRequest } from '../helpers/otlpReceiver.js';

const { newBox, start } = trackedSandboxes(afterEach);
const receivers: OtlpReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

const sessionTokens = (request: OtlpRequest) => {
  if (request.path !== '/v1/metrics') return undefined;
  const metric = otlpMetrics(request).find((m) => m.name === 'recap.session.tokens');
  return metric === undefined ? undefined : points(metric);
};

describe("a session's end over OTLP/HTTP", () => {
  it('exports its tokens per model and type, its tool calls, and a log record with its rows', async () => {
    const collector = await OtlpReceiver.start(0);
    receivers.push(collector);
    const box = newBox();
    await start(box, { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_METRIC_EXPORT_INTERVAL: '200' });
    mkdirSync(join(box.dir, 'transcripts'));
    const transcript = join(box.dir, 'transcripts', 'sess-otel.jsonl');
    const line = {
      type: 'assistant',
      requestId: 'r1',
      message: { id: 'm1', model: 'claude-opus-5', usage: { input_tokens: 1500, output_tokens: 90, cache_read_input_tokens: 40 } },
    };
    writeFileSync(transcript, `${JSON.stringify(line)}\n`);
    const fields = { session_id: 'sess-otel', transcript_path: transcript, cwd: box.project };
    const hook = (payload: Record<string, unknown>) => runHookCommand(box, hookCommands('claude')['recap-hook'], { ...fields, ...payload });
    await hook({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 't1' });
    expect(await hook({ hook_event_name: 'SessionEnd', reason: 'other' })).toMatchObject({ code: 0, stdout: '' });

    const exported = await collector.waitFor((r) => (sessionTokens(r)?.length ?? 0) > 0);
    expect(sessionTokens(exported)).toEqual(
      expect.arrayContaining([
        { attributes: { agent: 'claude', model: 'claude-opus-5', type: 'input' }, value: 1500 },
        { attributes: { agent: 'claude', model: 'claude-opus-5', type: 'output' }, value: 90 },
        { attributes: { agent: 'claude', model: 'claude-opus-5', type: 'cacheRead' }, value: 40 },
      ]),
    );
    const calls = otlpMetrics(exported).find((m) => m.name === 'recap.session.tool_calls');
    expect(points(calls!)).toEqual([{ attributes: { agent: 'claude' }, value: 1 }]);

    const logs = await collector.waitFor((r) => r.path === '/v1/logs' && otlpLogRecords(r).some((record) => record.eventName === 'recap.SessionEnded'));
    const ended = otlpLogRecords(logs).find((record) => record.eventName === 'recap.SessionEnded')!;
    expect(attributes(ended.attributes)).toMatchObject({
      session: 'sess-otel',
      from: 'claude',
      reason: 'other',
      toolCalls: 1,
      'byModel.claude-opus-5.input': 1500,
      'byAgent.main.output': 90,
    });
  });
});
