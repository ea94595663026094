// One log record per event appended: its type as the event name, its facts as attributes.
// The texts people wrote or read (prompts, summaries, notes, notices, a rejected summary's
// problems) go along only when the user asked for them (OTEL_LOG_USER_PROMPTS=1).
import type { AttributeValue } from '@opentelemetry/api';
import type { LogRecord } from '@opentelemetry/api-logs';
import type { StoredEvent } from '../../events/events.js';

/** Keys of an event's data that hold text a person wrote or may quote a summary. */
const TEXT_KEYS: ReadonlySet<string> = new Set(['text', 'note', 'problems']);

/** Keys of an event's data that hold the process that ran a user's command (a Caller). */
const CALLER_KEYS: ReadonlySet<string> = new Set(['by', 'caller']);

/**
 * A session's report rows (SessionEnded), each flattened under its name: byModel.<model>.input,
 * byAgent.<agent>.output, and so on, so every collector reads them as plain attributes.
 */
const ROW_KEYS: Readonly<Record<string, string>> = { byModel: 'model', byAgent: 'agent' };

/** SeverityNumber.INFO, without loading @opentelemetry/api's values for one number. */
const INFO = 9;

export function eventRecord(event: StoredEvent, logTexts: boolean): LogRecord {
  const name = `recap.${event.type}`;
  const attributes: Record<string, AttributeValue> = { 'event.name': name, seq: event.seq, version: event.version };
  for (const [key, value] of Object.entries(event.data)) {
    if (TEXT_KEYS.has(key) && !logTexts) continue;
    const attribute = attributeOf(value);
    if (attribute !== undefined) attributes[key] = attribute;
    else if (Object.hasOwn(ROW_KEYS, key) && Array.isArray(value)) Object.assign(attributes, rowAttributes(key, ROW_KEYS[key]!, value));
    else if (CALLER_KEYS.has(key) && value !== null && typeof value === 'object') {
      // Who ran a user's command (pause, trip, config allow): by.pid, by.program, by.ancestry.
      for (const [field, inner] of Object.entries(value)) {
        const scalar = attributeOf(inner);
        if (scalar !== undefined && !Array.isArray(scalar)) attributes[`${key}.${field}`] = scalar;
      }
    }
  }
  return { eventName: name, timestamp: event.data.time, severityNumber: INFO, severityText: 'INFO', body: event.type, attributes };
}

/** Each row's numbers as `<key>.<the row's name>.<field>`. */
function rowAttributes(key: string, nameField: string, rows: unknown[]): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const row of rows) {
    if (row === null || typeof row !== 'object') continue;
    const name = (row as Record<string, unknown>)[nameField];
    if (typeof name !== 'string') continue;
    for (const [field, inner] of Object.entries(row)) if (typeof inner === 'number') out[`${key}.${name}.${field}`] = inner;
  }
  return out;
}

/** Scalars and lists of scalars; other objects (a config's values, a summary's sections) are left out. */
function attributeOf(value: unknown): AttributeValue | undefined {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
  if (Array.isArray(value) && value.every((v) => typeof v === 'number')) return value as number[];
  return undefined;
}
