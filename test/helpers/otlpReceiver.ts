// An OTLP/HTTP collector for tests: takes every POST on 127.0.0.1, answers 200 as a collector
// does, and lets a test await the first request (past or future) that holds what it wants.
// Payloads are read in either encoding: JSON, or protobuf decoded with opentelemetry-proto's
// definitions as the OpenTelemetry JS project compiled them (protobufjs; a test-only
// package, otlp-transformer-protobufjs, is an older @opentelemetry/otlp-transformer that
// shipped them).
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';

export type OtlpRequest = { path: string; contentType: string; body: Buffer };

export class OtlpReceiver {
  readonly requests: OtlpRequest[] = [];
  private waiters: { match: (request: OtlpRequest) => boolean; resolve: (request: OtlpRequest) => void }[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  /** Listens on `port` (0: any free one). */
  static start(port = 0): Promise<OtlpReceiver> {
    return new Promise((resolve, reject) => {
      const server = createServer();
      server.once('error', reject);
      server.listen({ port, host: '127.0.0.1' }, () => {
        const receiver = new OtlpReceiver(server, `http://127.0.0.1:${(server.address() as { port: number }).port}`);
        server.on('request', (req, res) => {
          const chunks: Buffer[] = [];
          req.on('data', (chunk: Buffer) => chunks.push(chunk));
          req.on('end', () => {
            const contentType = req.headers['content-type'] ?? '';
            res.writeHead(200, { 'content-type': contentType.includes('json') ? 'application/json' : 'application/x-protobuf' }).end(contentType.includes('json') ? '{}' : '');
            receiver.take({ path: req.url ?? '', contentType, body: Buffer.concat(chunks) });
          });
        });
        resolve(receiver);
      });
    });
  }

  private take(request: OtlpRequest): void {
    this.requests.push(request);
    this.waiters = this.waiters.filter((w) => {
      if (!w.match(request)) return true;
      w.resolve(request);
      return false;
    });
  }

  waitFor(match: (request: OtlpRequest) => boolean): Promise<OtlpRequest> {
    const seen = this.requests.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

// An OTLP export request (opentelemetry-proto's ExportMetricsServiceRequest and
// ExportLogsServiceRequest) in its JSON shape, the few fields the tests read.
type KeyValue = { key: string; value: { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean } };
type Point = { attributes?: KeyValue[]; asInt?: string | number; asDouble?: number; count?: string | number; sum?: number };
export type JsonMetric = { name: string; unit?: string; sum?: { dataPoints: Point[] }; gauge?: { dataPoints: Point[] }; histogram?: { dataPoints: Point[] } };
export type JsonLogRecord = { eventName?: string; body?: { stringValue?: string }; attributes?: KeyValue[] };
type Resource = { resource: { attributes: KeyValue[] } };
type ExportRequest = {
  resourceMetrics?: (Resource & { scopeMetrics: { metrics: JsonMetric[] }[] })[];
  resourceLogs?: (Resource & { scopeLogs: { logRecords: JsonLogRecord[] }[] })[];
};

type ProtoType = { decode(bytes: Uint8Array): object; toObject(message: object, options: object): unknown };
type Collector = { metrics: { v1: { ExportMetricsServiceRequest: ProtoType } }; logs: { v1: { ExportLogsServiceRequest: ProtoType } } };
const collector = (createRequire(import.meta.url)('otlp-transformer-protobufjs/build/src/generated/root.js') as { opentelemetry: { proto: { collector: Collector } } })
  .opentelemetry.proto.collector;

/** The request as OTLP JSON has it, whichever encoding it came in. */
export function decoded(request: OtlpRequest): ExportRequest {
  if (request.contentType.includes('json')) return JSON.parse(request.body.toString('utf8')) as ExportRequest;
  if (request.contentType !== 'application/x-protobuf') throw new Error(`not an OTLP/HTTP content type: ${request.contentType}`);
  const type = request.path === '/v1/metrics' ? collector.metrics.v1.ExportMetricsServiceRequest : collector.logs.v1.ExportLogsServiceRequest;
  return type.toObject(type.decode(request.body), { longs: Number, enums: Number, defaults: false }) as ExportRequest;
}

export function otlpMetrics(request: OtlpRequest): JsonMetric[] {
  return (decoded(request).resourceMetrics ?? []).flatMap((r) => r.scopeMetrics.flatMap((s) => s.metrics));
}

export function otlpResource(request: OtlpRequest): Record<string, unknown> {
  const parsed = decoded(request);
  return attributes((parsed.resourceMetrics ?? parsed.resourceLogs ?? [])[0]?.resource.attributes);
}

export function otlpLogRecords(request: OtlpRequest): JsonLogRecord[] {
  return (decoded(request).resourceLogs ?? []).flatMap((r) => r.scopeLogs.flatMap((s) => s.logRecords));
}

/** Attributes as a plain object, numbers as numbers (OTLP JSON may write 64-bit integers as strings). */
export function attributes(list: KeyValue[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of list ?? []) out[key] = value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.doubleValue ?? value.boolValue));
  return out;
}

/** A metric's points as { attributes, value } (a histogram's value is its count). */
export function points(metric: JsonMetric): { attributes: Record<string, unknown>; value: number; sum?: number }[] {
  const data = metric.sum ?? metric.gauge ?? metric.histogram;
  return (data?.dataPoints ?? []).map((p) => ({
    attributes: attributes(p.attributes),
    value: Number(p.asInt ?? p.asDouble ?? p.count ?? NaN),
    ...(p.sum !== undefined ? { sum: p.sum } : {}),
  }));
}
