// Where the daemon's telemetry goes, read from the standard OTEL_* variables: pure, so the
// daemon loads no OpenTelemetry package unless an OTLP endpoint is named.

export type Protocol = 'http/protobuf' | 'http/json';

export type SignalSettings = { url: string; protocol: Protocol; headers: Record<string, string>; timeoutMs: number };

export type TelemetryOn = {
  metrics?: SignalSettings & { intervalMs: number };
  logs?: SignalSettings;
  /** Texts of prompts, summaries and notes in the log records (OTEL_LOG_USER_PROMPTS=1, as Claude Code has it). */
  logTexts: boolean;
  resource: Record<string, string>;
  /** What was set but could not be used as it is: the daemon logs each. */
  warnings: string[];
};

export type TelemetrySettings = { off: string } | TelemetryOn;

type Signal = 'metrics' | 'logs';

const DEFAULT_INTERVAL_MS = 60_000;
/** Under the SDK's 10 s: an export to a dead collector gives up sooner, so a stopping daemon is not kept. */
const DEFAULT_TIMEOUT_MS = 5_000;
const PROTOCOLS: readonly string[] = ['http/protobuf', 'http/json'];

export function telemetrySettings(env: NodeJS.ProcessEnv): TelemetrySettings {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return { off: 'OTEL_SDK_DISABLED=true' };
  const base = nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if (!base && !nonEmpty(env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT) && !nonEmpty(env.OTEL_EXPORTER_OTLP_LOGS_ENDPOINT)) {
    return { off: 'no OTLP endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT)' };
  }
  const warnings: string[] = [];
  const settings: TelemetryOn = { logTexts: ['1', 'true'].includes(env.OTEL_LOG_USER_PROMPTS?.trim().toLowerCase() ?? ''), resource: resource(env, warnings), warnings };
  const metrics = signal(env, 'metrics', warnings);
  if (metrics) settings.metrics = { ...metrics, intervalMs: positive(env, 'OTEL_METRIC_EXPORT_INTERVAL', DEFAULT_INTERVAL_MS, warnings) };
  const logs = signal(env, 'logs', warnings);
  if (logs) settings.logs = logs;
  if (!settings.metrics && !settings.logs) return { off: `neither metrics nor logs can be exported${warnings.length > 0 ? `: ${warnings.join('; ')}` : ''}` };
  return settings;
}

/** One signal's exporter, or nothing when it is switched off or has nowhere to go. */
function signal(env: NodeJS.ProcessEnv, name: Signal, warnings: string[]): SignalSettings | undefined {
  const upper = name.toUpperCase();
  const exporterVar = `OTEL_${upper}_EXPORTER`;
  const exporters = (nonEmpty(env[exporterVar]) ?? 'otlp').split(',').map((e) => e.trim().toLowerCase());
  if (exporters.includes('none')) return undefined;
  const others = exporters.filter((e) => e !== 'otlp');
  if (others.length > 0) warnings.push(`${exporterVar}=${env[exporterVar]}: recap exports OTLP only, so ${others.join(', ')} is ignored`);

  const signalVar = `OTEL_EXPORTER_OTLP_${upper}_ENDPOINT`;
  const own = nonEmpty(env[signalVar]);
  const base = nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  // The base endpoint is the collector's root: each signal has its own path under it.
  const url = own ?? (base ? `${base.replace(/\/+$/, '')}/v1/${name}` : undefined);
  if (url === undefined) return undefined;
  if (!isHttpUrl(url)) {
    warnings.push(`${own ? signalVar : 'OTEL_EXPORTER_OTLP_ENDPOINT'}=${own ?? base} is not an http:// or https:// URL, so ${name} are not exported`);
    return undefined;
  }
  return {
    url,
    protocol: protocol(env, upper, warnings),
    headers: { ...keyValues(env, 'OTEL_EXPORTER_OTLP_HEADERS', warnings), ...keyValues(env, `OTEL_EXPORTER_OTLP_${upper}_HEADERS`, warnings) },
    timeoutMs: positive(env, `OTEL_EXPORTER_OTLP_${upper}_TIMEOUT`, positive(env, 'OTEL_EXPORTER_OTLP_TIMEOUT', DEFAULT_TIMEOUT_MS, warnings), warnings),
  };
}

function protocol(env: NodeJS.ProcessEnv, upper: string, warnings: string[]): Protocol {
  const name = nonEmpty(env[`OTEL_EXPORTER_OTLP_${upper}_PROTOCOL`]) ? `OTEL_EXPORTER_OTLP_${upper}_PROTOCOL` : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const wanted = nonEmpty(env[name])?.toLowerCase();
  if (wanted === undefined) return 'http/protobuf';
  if (PROTOCOLS.includes(wanted)) return wanted as Protocol;
  if (wanted === 'grpc') warnings.push(`${name}=grpc: recap sends OTLP over HTTP only, so http/protobuf is used (the collector's port 4318, not 4317)`);
  else warnings.push(`${name}=${env[name]} is not a protocol recap knows (http/protobuf or http/json), so http/protobuf is used`);
  return 'http/protobuf';
}

/** service.name from OTEL_SERVICE_NAME, else from OTEL_RESOURCE_ATTRIBUTES, else "recap". */
function resource(env: NodeJS.ProcessEnv, warnings: string[]): Record<string, string> {
  const attributes = keyValues(env, 'OTEL_RESOURCE_ATTRIBUTES', warnings);
  return { ...attributes, 'service.name': nonEmpty(env.OTEL_SERVICE_NAME) ?? attributes['service.name'] ?? 'recap' };
}

/** The W3C Baggage-like list the OTEL_* variables use: `key=value,key2=value2`, values percent-encoded. */
function keyValues(env: NodeJS.ProcessEnv, name: string, warnings: string[]): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const entry of (env[name] ?? '').split(',')) {
    if (entry.trim() === '') continue;
    const at = entry.indexOf('=');
    const key = at > 0 ? decoded(entry.slice(0, at).trim()) : undefined;
    const value = at > 0 ? decoded(entry.slice(at + 1).trim()) : undefined;
    if (!key || value === undefined) {
      // The entry itself may hold a secret (a token without its key): it is not repeated.
      warnings.push(`${name} has an entry that is not key=value; it is ignored`);
      continue;
    }
    pairs[key] = value;
  }
  return pairs;
}

function decoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

function positive(env: NodeJS.ProcessEnv, name: string, fallback: number, warnings: string[]): number {
  const text = nonEmpty(env[name]);
  if (text === undefined) return fallback;
  const value = Number(text);
  if (Number.isSafeInteger(value) && value > 0) return value;
  warnings.push(`${name}=${text} is not a positive number of milliseconds; using ${fallback}`);
  return fallback;
}

function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
