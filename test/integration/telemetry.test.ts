// OpenTelemetry export from the real daemon to an OTLP/HTTP receiver in the test: the metrics
// and log records a team's collector gets, texts only when asked for, nothing at all unless
// an endpoint is named, and a dead collector that never holds a hook or the stop.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { jobIdFor } from '../../src/common/jobs.js';
import { freePort, RawClient, runCli, type DaemonProcess, type Sandbox, trackedSandboxes } from '../helpers/daemon.js';
import { attributes, OtlpReceiver, otlpLogRecords, otlpMetrics, otlpResource, points, type JsonMetric, type OtlpRequest } from '../helpers/otlpReceiver.js';
import { goodSummary, prose } from '../helpers/text.js';

const { newBox, start } = trackedSandboxes(afterEach);
const receivers: OtlpReceiver[] = [];
const clients: RawClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

const SECRET = 'Please refactor the billing module; the launch code is AZURE-PELICAN-42.';

async function receiver(port = 0): Promise<OtlpReceiver> {
  const started = await OtlpReceiver.start(port);
  receivers.push(started);
  return started;
}

/** What the tests do in a job: `j` trips on tokens, has Read denied and a summary accepted; the project's job gets a prompt by hook, a manual trip and a hook denied. */
async function work(box: Sandbox): Promise<{ hookJob: string }> {
  for (;;) {
    const recorded = await runCli(box, ['record', '--job', 'j', '--json', '--text', prose(12)]);
    if ((JSON.parse(recorded.stdout) as { gate: { tripped: boolean } }).gate.tripped) break;
  }
  expect((await runCli(box, ['check', '--job', 'j', '--tool', 'Read'])).code).toBe(2);
  const submitted = await runCli(box, ['submit', '--job', 'j'], { input: goodSummary() });
  expect(submitted.code, submitted.stderr).toBe(0);

  const client = await RawClient.connect(box.socket);
  clients.push(client);
  let id = 1;
  const base = { session_id: 'sess-1', transcript_path: '/tmp/transcripts/sess-1.jsonl', cwd: box.project, permission_mode: 'default' };
  const hook = async (payload: Record<string, unknown>) =>
    (await client.request({ id: id++, op: 'hook', agent: 'claude', payload: { ...base, ...payload } })).result as { stdout: string };
  expect((await hook({ hook_event_name: 'UserPromptSubmit', prompt: SECRET })).stdout).toBe('');
  const hookJob = jobIdFor(box.project);
  expect((await runCli(box, ['trip', '--job', hookJob])).code).toBe(0);
  const denied = await hook({ hook_event_name: 'PreToolUse', tool_name: 'Grep', tool_input: { pattern: 'x' }, tool_use_id: 'toolu_1' });
  expect(denied.stdout).toContain('"permissionDecision":"deny"');
  return { hookJob };
}

const metricNamed = (metrics: JsonMetric[], name: string) => metrics.find((m) => m.name === name);

/** The first metrics export that has counted everything `work` did. */
function allCounted(request: OtlpRequest): boolean {
  if (request.path !== '/v1/metrics') return false;
  const metrics = otlpMetrics(request);
  const hooks = metricNamed(metrics, 'recap.hook.duration');
  const summaries = metricNamed(metrics, 'recap.summaries');
  const trips = metricNamed(metrics, 'recap.gate.trips');
  return (
    hooks !== undefined &&
    points(hooks).reduce((n, p) => n + p.value, 0) >= 2 &&
    summaries !== undefined &&
    trips !== undefined &&
    points(trips).reduce((n, p) => n + p.value, 0) >= 2
  );
}

function processState(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]![0]!;
  } catch {
    return 'gone';
  }
}

async function stopCleanly(box: Sandbox, daemon: DaemonProcess): Promise<void> {
  const stopped = await runCli(box, ['stop']);
  expect(stopped.code, stopped.stderr).toBe(0);
  // `recap stop` returns once the process has exited (gone, or a zombie left for its parent).
  expect(processState(daemon.child.pid!)).toMatch(/^(?:gone|Z)$/);
  expect(await daemon.exited).toBe(0);
  expect(daemon.lines.some((l) => l.msg === 'recap daemon stopped')).toBe(true);
}

describe('telemetry over OTLP/HTTP', () => {
  it.each([
    ['http/json', 'application/json'],
    ['http/protobuf', 'application/x-protobuf'],
  ])('exports recap.* metrics with their units and values, and a log record per event without texts (%s)', async (protocol, contentType) => {
    const collector = await receiver();
    const box = newBox();
    const daemon = await start(box, {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
      OTEL_METRIC_EXPORT_INTERVAL: '200',
      OTEL_RESOURCE_ATTRIBUTES: 'team=core',
    });
    const said = await daemon.waitForLog((l) => l.msg.startsWith('telemetry: exporting'));
    expect(said.msg).toBe(
      `telemetry: exporting metrics to ${collector.url}/v1/metrics every 200 ms (${protocol}) and a log record per event to ${collector.url}/v1/logs (${protocol}, without texts)`,
    );
    const { hookJob } = await work(box);

    const exported = await collector.waitFor(allCounted);
    expect(exported.contentType).toBe(contentType);
    expect(otlpResource(exported)).toMatchObject({ 'service.name': 'recap', team: 'core' });
    const metrics = otlpMetrics(exported);
    const read = (name: string) => {
      const metric = metricNamed(metrics, name);
      expect(metric, name).toBeDefined();
      return { unit: metric!.unit, points: points(metric!) };
    };
    expect(read('recap.gate.trips')).toEqual({
      unit: '{trip}',
      points: expect.arrayContaining([
        { attributes: { reason: 'threshold' }, value: 1 },
        { attributes: { reason: 'manual' }, value: 1 },
      ]),
    });
    expect(read('recap.gate.trips').points).toHaveLength(2);
    expect(read('recap.tool.denials')).toEqual({
      unit: '{denial}',
      points: expect.arrayContaining([
        { attributes: { tool: 'Read', cause: 'gate' }, value: 1 },
        { attributes: { tool: 'Grep', cause: 'gate' }, value: 1 },
      ]),
    });
    expect(read('recap.summaries')).toEqual({ unit: '{summary}', points: [{ attributes: { outcome: 'accepted' }, value: 1 }] });
    const summaryTokens = read('recap.summary.tokens');
    expect(summaryTokens.unit).toBe('{token}');
    expect(summaryTokens.points).toEqual([{ attributes: {}, value: 1, sum: expect.any(Number) }]);
    expect(summaryTokens.points[0]!.sum).toBeGreaterThan(100);

    const status = JSON.parse((await runCli(box, ['status', '--job', hookJob, '--json'])).stdout) as { unsummarizedTokens: number };
    expect(status.unsummarizedTokens).toBeGreaterThan(0);
    const gauge = read('recap.tokens.unsummarized');
    expect(gauge.unit).toBe('{token}');
    expect(gauge.points).toEqual(
      expect.arrayContaining([
        { attributes: { job: 'j' }, value: 0 },
        { attributes: { job: hookJob }, value: status.unsummarizedTokens },
      ]),
    );

    const hooks = read('recap.hook.duration');
    expect(hooks.unit).toBe('ms');
    expect(hooks.points.map((p) => [p.attributes, p.value])).toEqual(
      expect.arrayContaining([
        [{ agent: 'claude', decision: 'allow' }, 1],
        [{ agent: 'claude', decision: 'deny' }, 1],
      ]),
    );

    // The logs: one record per event, with the event's facts and none of its texts.
    await collector.waitFor((r) => r.path === '/v1/logs' && otlpLogRecords(r).some((record) => attributes(record.attributes).tool === 'Grep'));
    await stopCleanly(box, daemon);
    const logs = collector.requests.filter((r) => r.path === '/v1/logs');
    expect(logs.every((r) => r.contentType === contentType)).toBe(true);
    const records = logs.flatMap(otlpLogRecords);
    const named = (name: string) => records.filter((r) => r.eventName === name).map((r) => attributes(r.attributes));
    expect(named('recap.GateTripped')).toEqual(
      expect.arrayContaining([expect.objectContaining({ 'event.name': 'recap.GateTripped', job: 'j', reason: 'threshold', seq: expect.any(Number) })]),
    );
    expect(named('recap.ToolDenied')).toEqual(expect.arrayContaining([expect.objectContaining({ job: hookJob, tool: 'Grep', cause: 'gate', session: 'sess-1' })]));
    const accepted = named('recap.SummaryAccepted');
    expect(accepted).toEqual([expect.objectContaining({ job: 'j', level: 0, tokens: expect.any(Number), hash: expect.any(String) })]);
    expect(accepted[0]!.tokens).toBe(summaryTokens.points[0]!.sum);
    expect(accepted[0]).not.toHaveProperty('text');
    const prompts = named('recap.InteractionRecorded').filter((r) => r.job === hookJob);
    expect(prompts).toEqual([expect.objectContaining({ kind: 'prompt', tokens: expect.any(Number), session: 'sess-1' })]);
    expect(prompts[0]).not.toHaveProperty('text');
    for (const request of logs) expect(request.body.toString('utf8')).not.toContain('AZURE-PELICAN');
  });

  it('sends http/protobuf by default, and the texts with OTEL_LOG_USER_PROMPTS=1', async () => {
    const collector = await receiver();
    const box = newBox();
    const daemon = await start(box, { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_METRIC_EXPORT_INTERVAL: '200', OTEL_LOG_USER_PROMPTS: '1' });
    const { hookJob } = await work(box);
    const metrics = await collector.waitFor(allCounted);
    expect(metrics.contentType).toBe('application/x-protobuf');
    const prompted = await collector.waitFor((r) => r.path === '/v1/logs' && otlpLogRecords(r).some((record) => attributes(record.attributes).text === SECRET));
    expect(prompted.contentType).toBe('application/x-protobuf');
    const record = otlpLogRecords(prompted).find((r) => attributes(r.attributes).text === SECRET)!;
    expect(record.eventName).toBe('recap.InteractionRecorded');
    expect(attributes(record.attributes)).toMatchObject({ job: hookJob, kind: 'prompt', session: 'sess-1' });
    await stopCleanly(box, daemon);
  });

  it('is off unless an endpoint is named: nothing is sent, the daemon log says nothing of it', async () => {
    // Where an SDK with its defaults would send (localhost:4318), when that port is free here.
    const collector = await receiver(await freePortOr(4318));
    const box = newBox();
    const daemon = await start(box, { OTEL_METRIC_EXPORT_INTERVAL: '200', OTEL_SERVICE_NAME: 'recap-test' });
    await work(box);
    await stopCleanly(box, daemon);
    expect(collector.requests).toEqual([]);
    expect(daemon.stderr.filter((line) => /telemetry|opentelemetry/i.test(line))).toEqual([]);
  });

  it('with the collector down, hooks still answer, a warning is logged and the daemon stops cleanly', async () => {
    const box = newBox();
    const closed = await freePort();
    const daemon = await start(box, { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${closed}`, OTEL_METRIC_EXPORT_INTERVAL: '200' });
    await work(box);
    const warning = await daemon.waitForLog((l) => l.level === 40 && l.msg.startsWith('telemetry: '));
    expect(warning.msg).toMatch(/^telemetry: /);
    const asked = Date.now();
    await stopCleanly(box, daemon);
    // The flush waits 2 s at most, and the process ends then: not after the exporter's own
    // retries (OTEL_EXPORTER_OTLP_TIMEOUT, 5 s), which `recap stop` would otherwise wait out.
    expect(Date.now() - asked).toBeLessThan(5_000);
  });
});

/** `port` when nobody listens on it, else any free one. */
async function freePortOr(port: number): Promise<number> {
  try {
    const probe = await OtlpReceiver.start(port);
    await probe.close();
    return port;
  } catch {
    return 0;
  }
}
