// The daemon's OpenTelemetry export: metrics and one log record per event, over OTLP/HTTP to
// where the OTEL_* variables say. The SDK is imported only here, and only when telemetry is
// on; an export that fails is a warning in the daemon's log, never a failed hook.
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { AgentName } from '../../agents/known.js';
import type { HookAnswer } from '../../agents/facts.js';
import type { StoredEvent } from '../../events/events.js';
import type { QualityTotals } from '../../events/qualitySignals.js';
import { eventRecord } from './logs.js';
import { recapMetrics } from './metrics.js';
import { telemetrySettings, type SignalSettings, type TelemetryOn } from './settings.js';

export type Telemetry = {
  /** Feeds the counters and the log with events just appended. */
  appended(events: readonly StoredEvent[]): void;
  hookAnswered(agent: AgentName, ms: number, answer: HookAnswer): void;
  /** Exports what is left and stops, waiting at most `deadlineMs` (then what was left is dropped). */
  shutdown(deadlineMs: number): Promise<void>;
};

export type TelemetryDeps = {
  log: Logger;
  version: string;
  /** Each job's unsummarized tokens now, read at every metric export. */
  unsummarized: () => Iterable<[job: string, tokens: number]>;
  /** Each job's memory quality totals now (qualityIndex.ts), read at every metric export. */
  quality?: () => Iterable<[job: string, totals: QualityTotals]>;
};

/**
 * Telemetry as the OTEL_* variables ask, or none: when no endpoint is named, when the SDK
 * is switched off, or when it cannot start (said in the daemon's log, the daemon runs on).
 */
export async function telemetryFrom(env: NodeJS.ProcessEnv, deps: TelemetryDeps): Promise<Telemetry | undefined> {
  const settings = telemetrySettings(env);
  if ('off' in settings) {
    // Silent for everyone who never asked for telemetry.
    if (Object.keys(env).some((name) => /^OTEL_EXPORTER_OTLP_(\w+_)?ENDPOINT$/.test(name))) deps.log.info(`telemetry is off: ${settings.off}`);
    return undefined;
  }
  for (const warning of settings.warnings) deps.log.warn(`telemetry: ${warning}`);
  try {
    const telemetry = await startTelemetry(settings, deps);
    deps.log.info({ metrics: settings.metrics?.url ?? null, logs: settings.logs?.url ?? null, texts: settings.logTexts }, telemetryTargets(settings));
    return telemetry;
  } catch (error) {
    deps.log.warn({ err: error }, 'telemetry could not start; the daemon runs without it');
    return undefined;
  }
}

/** A failing collector would otherwise put a warning in the daemon's log at every export. */
const WARN_EVERY_MS = 60_000;

export async function startTelemetry(settings: TelemetryOn, deps: TelemetryDeps): Promise<Telemetry> {
  const { log } = deps;
  const [api, { resourceFromAttributes }] = await Promise.all([import('@opentelemetry/api'), import('@opentelemetry/resources')]);
  api.diag.setLogger(diagToLog(log), api.DiagLogLevel.WARN);
  const resource = resourceFromAttributes({ 'host.name': hostname(), ...settings.resource, 'service.version': deps.version });

  const stops: (() => Promise<void>)[] = [];
  let metrics: ReturnType<typeof recapMetrics> | undefined;
  if (settings.metrics) {
    const { MeterProvider, PeriodicExportingMetricReader } = await import('@opentelemetry/sdk-metrics');
    const { intervalMs } = settings.metrics;
    const exporter = await metricExporter(settings.metrics);
    const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: intervalMs, exportTimeoutMillis: Math.min(settings.metrics.timeoutMs, intervalMs) });
    const provider = new MeterProvider({ resource, readers: [reader] });
    metrics = recapMetrics(provider.getMeter('recap', deps.version), deps.unsummarized, deps.quality);
    stops.push(() => provider.shutdown());
  }
  let emit: ((event: StoredEvent) => void) | undefined;
  if (settings.logs) {
    const { LoggerProvider, BatchLogRecordProcessor } = await import('@opentelemetry/sdk-logs');
    const exporter = await logExporter(settings.logs);
    const provider = new LoggerProvider({ resource, processors: [new BatchLogRecordProcessor({ exporter, exportTimeoutMillis: settings.logs.timeoutMs })] });
    const logger = provider.getLogger('recap', deps.version);
    const { logTexts } = settings;
    emit = (event) => logger.emit(eventRecord(event, logTexts));
    stops.push(() => provider.shutdown());
  }

  return {
    appended(events) {
      try {
        metrics?.count(events);
        if (emit) for (const event of events) emit(event);
      } catch (error) {
        log.warn({ err: error }, 'telemetry could not take the events appended');
      }
    },
    hookAnswered(agent, ms, answer) {
      try {
        metrics?.hookAnswered(agent, ms, answer);
      } catch (error) {
        log.warn({ err: error }, 'telemetry could not record a hook answer');
      }
    },
    async shutdown(deadlineMs) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), deadlineMs)));
      const done = Promise.allSettled(stops.map((stop) => stop())).then(() => true as const);
      const flushed = await Promise.race([done, late]);
      clearTimeout(timer);
      if (!flushed) log.warn(`telemetry: the collector did not take the last export within ${deadlineMs} ms; it is dropped`);
    },
  };
}

/** The daemon log's line on start: where each signal goes. */
export function telemetryTargets(settings: TelemetryOn): string {
  const metrics = settings.metrics ? `metrics to ${settings.metrics.url} every ${settings.metrics.intervalMs} ms (${settings.metrics.protocol})` : undefined;
  const logs = settings.logs ? `a log record per event to ${settings.logs.url} (${settings.logs.protocol}${settings.logTexts ? ', with texts' : ', without texts'})` : undefined;
  return `telemetry: exporting ${[metrics, logs].filter(Boolean).join(' and ')}`;
}

async function metricExporter(settings: SignalSettings) {
  const config = { url: settings.url, headers: settings.headers, timeoutMillis: settings.timeoutMs };
  if (settings.protocol === 'http/json') return new (await import('@opentelemetry/exporter-metrics-otlp-http')).OTLPMetricExporter(config);
  return new (await import('@opentelemetry/exporter-metrics-otlp-proto')).OTLPMetricExporter(config);
}

async function logExporter(settings: SignalSettings) {
  const config = { url: settings.url, headers: settings.headers, timeoutMillis: settings.timeoutMs };
  if (settings.protocol === 'http/json') return new (await import('@opentelemetry/exporter-logs-otlp-http')).OTLPLogExporter(config);
  return new (await import('@opentelemetry/exporter-logs-otlp-proto')).OTLPLogExporter(config);
}

/** The SDK's own complaints (a failed export, a timeout) as warnings in the daemon's log, each at most once a minute. */
function diagToLog(log: Logger) {
  const lastWarned = new Map<string, number>();
  const warn = (said: string, ...args: unknown[]) => {
    const message = errorMessage(said);
    const now = Date.now();
    if (now - (lastWarned.get(message) ?? -Infinity) < WARN_EVERY_MS) return;
    lastWarned.set(message, now);
    const err = args.find((arg) => arg instanceof Error);
    log.warn(err ? { err } : { detail: args.map(String).join(' ') || undefined }, `telemetry: ${message}`);
  };
  const quiet = () => undefined;
  return { error: warn, warn, info: quiet, debug: quiet, verbose: quiet };
}

/** The SDK's error handler hands an error over as its JSON: its message is what a person reads. */
function errorMessage(said: string): string {
  if (!said.startsWith('{')) return said;
  try {
    const { message } = JSON.parse(said) as { message?: unknown };
    return typeof message === 'string' ? `an export failed: ${message}` : said;
  } catch {
    return said;
  }
}
