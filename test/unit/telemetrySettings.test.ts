// Telemetry is off unless an OTLP endpoint is named, and then follows the standard OTEL_*
// variables: where each signal goes, how, with which headers, and whether texts go along.
import { describe, expect, it } from 'vitest';
import { telemetrySettings, type TelemetryOn } from '../../src/daemon/telemetry/settings.js';

const on = (env: NodeJS.ProcessEnv): TelemetryOn => {
  const settings = telemetrySettings(env);
  if ('off' in settings) throw new Error(`telemetry is off: ${settings.off}`);
  return settings;
};

describe('telemetrySettings', () => {
  it('is off without an OTLP endpoint, whatever else is set', () => {
    expect(telemetrySettings({})).toEqual({ off: 'no OTLP endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT)' });
    expect(telemetrySettings({ OTEL_SERVICE_NAME: 'x', OTEL_METRIC_EXPORT_INTERVAL: '1000', OTEL_EXPORTER_OTLP_ENDPOINT: '  ' })).toHaveProperty('off');
  });

  it('is off with OTEL_SDK_DISABLED=true, and when both signals are switched off', () => {
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'TRUE' })).toEqual({ off: 'OTEL_SDK_DISABLED=true' });
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'false' })).not.toHaveProperty('off');
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_METRICS_EXPORTER: 'none', OTEL_LOGS_EXPORTER: 'none' })).toHaveProperty('off');
  });

  it('sends both signals under the base endpoint, as http/protobuf every 60 s, by default', () => {
    expect(on({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toEqual({
      metrics: { url: 'http://collector:4318/v1/metrics', protocol: 'http/protobuf', headers: {}, timeoutMs: 5000, intervalMs: 60_000 },
      logs: { url: 'http://collector:4318/v1/logs', protocol: 'http/protobuf', headers: {}, timeoutMs: 5000 },
      logTexts: false,
      resource: { 'service.name': 'recap' },
      warnings: [],
    });
  });

  it('uses a signal endpoint as it is, and exports only the signals that have an endpoint', () => {
    const metricsOnly = on({ OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'https://m.example/custom/path' });
    expect(metricsOnly.metrics?.url).toBe('https://m.example/custom/path');
    expect(metricsOnly.logs).toBeUndefined();
    const both = on({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: 'http://l:9000/logs' });
    expect([both.metrics?.url, both.logs?.url]).toEqual(['http://c:4318/v1/metrics', 'http://l:9000/logs']);
  });

  it('switches one signal off with OTEL_<SIGNAL>_EXPORTER=none, and warns of an exporter it does not have', () => {
    const noLogs = on({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_LOGS_EXPORTER: 'none' });
    expect(noLogs.logs).toBeUndefined();
    expect(noLogs.metrics).toBeDefined();
    const prometheus = on({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_METRICS_EXPORTER: 'prometheus' });
    expect(prometheus.metrics).toBeDefined();
    expect(prometheus.warnings).toEqual(['OTEL_METRICS_EXPORTER=prometheus: recap exports OTLP only, so prometheus is ignored']);
  });

  it('takes http/json, per signal too; grpc or an unknown protocol falls back to http/protobuf with a warning', () => {
    const json = on({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_LOGS_PROTOCOL: 'http/protobuf' });
    expect([json.metrics?.protocol, json.logs?.protocol]).toEqual(['http/json', 'http/protobuf']);
    const grpc = on({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'grpc' });
    expect(grpc.metrics?.protocol).toBe('http/protobuf');
    expect(grpc.warnings).toEqual([expect.stringContaining('OTEL_EXPORTER_OTLP_METRICS_PROTOCOL=grpc: recap sends OTLP over HTTP only')]);
    expect(on({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'thrift' }).warnings).toHaveLength(2);
  });

  it('merges headers, a signal’s own winning, percent-decoded; a malformed entry is warned of without repeating it', () => {
    const settings = on({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20abc, x-team=core,secrettoken',
      OTEL_EXPORTER_OTLP_LOGS_HEADERS: 'x-team=logs',
    });
    expect(settings.metrics?.headers).toEqual({ authorization: 'Bearer abc', 'x-team': 'core' });
    expect(settings.logs?.headers).toEqual({ authorization: 'Bearer abc', 'x-team': 'logs' });
    expect(settings.warnings).toContain('OTEL_EXPORTER_OTLP_HEADERS has an entry that is not key=value; it is ignored');
    expect(settings.warnings.join('\n')).not.toContain('secrettoken');
  });

  it('reads the export interval and timeouts, keeping the default for a value that is not a positive number', () => {
    expect(on({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_METRIC_EXPORT_INTERVAL: '200' }).metrics?.intervalMs).toBe(200);
    const bad = on({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_METRIC_EXPORT_INTERVAL: '-5' });
    expect(bad.metrics?.intervalMs).toBe(60_000);
    expect(bad.warnings).toEqual(['OTEL_METRIC_EXPORT_INTERVAL=-5 is not a positive number of milliseconds; using 60000']);
    const timeouts = on({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_TIMEOUT: '2000', OTEL_EXPORTER_OTLP_LOGS_TIMEOUT: '1000' });
    expect([timeouts.metrics?.timeoutMs, timeouts.logs?.timeoutMs]).toEqual([2000, 1000]);
  });

  it('names the service from OTEL_SERVICE_NAME, else OTEL_RESOURCE_ATTRIBUTES, else recap', () => {
    const base = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' };
    expect(on({ ...base, OTEL_RESOURCE_ATTRIBUTES: 'team=core,host.name=ws-7' }).resource).toEqual({ team: 'core', 'host.name': 'ws-7', 'service.name': 'recap' });
    expect(on({ ...base, OTEL_RESOURCE_ATTRIBUTES: 'service.name=agent-gate' }).resource['service.name']).toBe('agent-gate');
    expect(on({ ...base, OTEL_RESOURCE_ATTRIBUTES: 'service.name=agent-gate', OTEL_SERVICE_NAME: 'recap-ws7' }).resource['service.name']).toBe('recap-ws7');
  });

  it('sends texts only with OTEL_LOG_USER_PROMPTS=1', () => {
    const base = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' };
    expect(on(base).logTexts).toBe(false);
    expect(on({ ...base, OTEL_LOG_USER_PROMPTS: '0' }).logTexts).toBe(false);
    expect(on({ ...base, OTEL_LOG_USER_PROMPTS: '1' }).logTexts).toBe(true);
  });

  it('refuses an endpoint that is not an http URL, with a warning', () => {
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toEqual({
      off: 'neither metrics nor logs can be exported: OTEL_EXPORTER_OTLP_ENDPOINT=collector:4318 is not an http:// or https:// URL, so metrics are not exported; OTEL_EXPORTER_OTLP_ENDPOINT=collector:4318 is not an http:// or https:// URL, so logs are not exported',
    });
  });
});
