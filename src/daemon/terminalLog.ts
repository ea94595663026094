// The daemon's log as a person at a terminal reads it (`npm start`, `recap daemon` in the
// foreground): one line per record, its time, level and message, then its other fields as
// key=value. The log file a background daemon writes keeps pino's JSON lines.
import { writeSync } from 'node:fs';

const LEVEL_NAMES: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** Fields every record has, said by the line's own layout or not at all. */
const LAYOUT = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'name', 'v']);

/** One of pino's JSON records as a line: `12:00:03 info recap daemon ready socket=... events=0`. */
export function terminalLine(record: string): string {
  let fields: Record<string, unknown>;
  try {
    fields = JSON.parse(record) as Record<string, unknown>;
  } catch {
    return record.endsWith('\n') ? record : `${record}\n`;
  }
  const time = typeof fields.time === 'number' ? new Date(fields.time).toTimeString().slice(0, 8) : '';
  const level = LEVEL_NAMES[fields.level as number] ?? String(fields.level);
  const rest = Object.entries(fields)
    .filter(([key, value]) => !LAYOUT.has(key) && value !== undefined)
    .map(([key, value]) => `${key}=${shown(value)}`);
  return `${[time, level, String(fields.msg ?? ''), ...rest].filter((part) => part !== '').join(' ')}\n`;
}

function shown(value: unknown): string {
  if (value !== null && typeof value === 'object' && 'message' in value) return JSON.stringify(String((value as { message: unknown }).message));
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value);
}

/** A pino destination that writes each record to `fd` as terminalLine makes it. */
export const terminalDestination = (fd: number) => ({ write: (record: string) => void writeSync(fd, terminalLine(record)) });
