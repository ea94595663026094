// The socket protocol's framing: a 4-byte big-endian length, then one UTF-8 JSON object.
// Node built-ins only: the hook client uses it.

export const DEFAULT_MAX_FRAME = 1024 * 1024;

export function encodeFrame(message: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(message), 'utf8');
  const frame = Buffer.allocUnsafe(4 + body.length);
  frame.writeUInt32BE(body.length, 0);
  body.copy(frame, 4);
  return frame;
}

export type FrameEvent =
  | { kind: 'message'; value: unknown }
  | { kind: 'invalid'; reason: string }
  | { kind: 'oversized'; length: number };

/**
 * Splits a byte stream into frames. An oversized frame cannot be skipped safely (its body
 * may never arrive whole), so after one the reader stops and the connection should close.
 */
export class FrameReader {
  private buffered: Buffer = Buffer.alloc(0);
  private stopped = false;

  constructor(private readonly maxFrame: number = DEFAULT_MAX_FRAME) {}

  /** Bytes received and not yet part of a complete frame. */
  get pending(): number {
    return this.buffered.length;
  }

  push(chunk: Buffer): FrameEvent[] {
    if (this.stopped) return [];
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const events: FrameEvent[] = [];
    while (this.buffered.length >= 4) {
      const length = this.buffered.readUInt32BE(0);
      if (length > this.maxFrame) {
        this.stopped = true;
        this.buffered = Buffer.alloc(0);
        events.push({ kind: 'oversized', length });
        break;
      }
      if (this.buffered.length < 4 + length) break;
      const body = this.buffered.subarray(4, 4 + length);
      this.buffered = this.buffered.subarray(4 + length);
      events.push(parse(body));
    }
    return events;
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function parse(body: Buffer): FrameEvent {
  let text: string;
  try {
    text = strictUtf8.decode(body);
  } catch {
    return { kind: 'invalid', reason: 'the frame is not valid UTF-8' };
  }
  try {
    return { kind: 'message', value: JSON.parse(text) };
  } catch {
    return { kind: 'invalid', reason: 'the frame is not valid JSON' };
  }
}
