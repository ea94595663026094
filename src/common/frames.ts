// The socket protocol's framing: a 4-byte big-endian length, then one UTF-8 JSON object.
// Node built-ins only: the hook client uses it.
import { parseJson } from './json.js';

/**
 * The largest hook payload recap judges whole (a 64 MiB Write, a 64 MiB prompt counted
 * exactly): anything bigger is denied by the hook client itself, never waved through.
 */
export const MAX_HOOK_PAYLOAD = 64 * 1024 * 1024;

/** The largest frame: a payload of MAX_HOOK_PAYLOAD and the request around it. */
export const DEFAULT_MAX_FRAME = MAX_HOOK_PAYLOAD + 64 * 1024;

/**
 * The largest answer recap's CLI reads: one that holds an interaction of MAX_HOOK_PAYLOAD
 * (`recap event`, `recap context`, a page of `recap export`), with its JSON escapes (at most
 * six bytes a byte, `\u0001`) and what surrounds it.
 */
export const MAX_ANSWER_FRAME = 8 * MAX_HOOK_PAYLOAD;

const MIB = 1024 * 1024;
/** A byte count as people read it: `65.06 MiB`, `812 bytes`. */
export function describeBytes(bytes: number): string {
  return bytes >= MIB ? `${(bytes / MIB).toFixed(2).replace(/\.?0+$/, '')} MiB` : `${bytes} bytes`;
}

export function encodeFrame(message: unknown): Buffer {
  return framesOf([JSON.stringify(message)]);
}

/** JSON texts (or their UTF-8 bytes) as frames one after another in one buffer, to be sent in one write. */
export function framesOf(texts: (string | Uint8Array)[]): Buffer {
  let size = 0;
  for (const text of texts) size += 4 + (typeof text === 'string' ? Buffer.byteLength(text) : text.length);
  const frames = Buffer.allocUnsafe(size);
  let at = 0;
  for (const text of texts) {
    let length: number;
    if (typeof text === 'string') length = frames.write(text, at + 4);
    else {
      frames.set(text, at + 4);
      length = text.length;
    }
    frames.writeUInt32BE(length, at);
    at += 4 + length;
  }
  return frames;
}

/** A frame's body: JSON text, its UTF-8 bytes, or those bytes in parts (written one after another). */
export type FrameText = string | Uint8Array | Uint8Array[];

/**
 * Frames as buffers to write one after another (corked: one writev): the frames given whole
 * are joined as framesOf joins them, and a frame given in parts goes as its parts, after its
 * length, so a page of megabytes is not copied to be sent.
 */
export function frameWrites(texts: FrameText[]): Uint8Array[] {
  const writes: Uint8Array[] = [];
  let whole: (string | Uint8Array)[] = [];
  for (const text of texts) {
    if (!Array.isArray(text)) {
      whole.push(text);
      continue;
    }
    if (whole.length > 0) writes.push(framesOf(whole));
    whole = [];
    let size = 0;
    for (const part of text) size += part.length;
    const length = Buffer.allocUnsafe(4);
    length.writeUInt32BE(size, 0);
    writes.push(length, ...text);
  }
  if (whole.length > 0) writes.push(framesOf(whole));
  return writes;
}

export type FrameEvent = { kind: 'message'; value: unknown } | { kind: 'invalid'; reason: string } | { kind: 'oversized'; length: number };

/** A frame's body as it came, not decoded; or a length over the limit. */
export type RawFrame = { kind: 'frame'; body: Buffer } | { kind: 'oversized'; length: number };

/**
 * Splits a byte stream into frames, their bodies left as bytes (a reader that passes JSON on
 * uncut, as `recap export` does, never parses it). An oversized frame cannot be skipped
 * safely (its body may never arrive whole), so after one the splitter stops and the
 * connection should close.
 */
export class FrameSplitter {
  /** Bytes not yet read as frames, as they came: joined once a frame is whole, not per chunk. */
  private chunks: Buffer[] = [];
  private size = 0;
  private stopped = false;

  constructor(private readonly maxFrame: number = DEFAULT_MAX_FRAME) {}

  /** Bytes received and not yet part of a complete frame. */
  get pending(): number {
    return this.size;
  }

  push(chunk: Buffer): RawFrame[] {
    return this.split(chunk, rawFrame, oversized);
  }

  /** The frames the chunk completes, each made by `frame` from its body (or `tooLarge` from its length) as it is cut. */
  split<T>(chunk: Buffer, frame: (body: Buffer) => T, tooLarge: (length: number) => T): T[] {
    if (this.stopped) return [];
    this.chunks.push(chunk);
    this.size += chunk.length;
    // Made with its first frame: a chunk of one frame (the hooks' shape) gets an array of
    // one, not an empty one grown to room for seventeen.
    let frames: T[] | undefined;
    while (this.size >= 4) {
      const length = this.first(4).readUInt32BE(0);
      if (length > this.maxFrame) {
        this.stopped = true;
        this.chunks = [];
        this.size = 0;
        frames = withFrame(frames, tooLarge(length));
        break;
      }
      if (this.size < 4 + length) break;
      frames = withFrame(frames, frame(this.first(4 + length).subarray(4, 4 + length)));
      this.consume(4 + length);
    }
    return frames ?? [];
  }

  /** The first chunk, made to hold at least `bytes` bytes (by joining the chunks if it does not). */
  private first(bytes: number): Buffer {
    if (this.chunks[0]!.length < bytes) this.chunks = [Buffer.concat(this.chunks, this.size)];
    return this.chunks[0]!;
  }

  private consume(bytes: number): void {
    const first = this.chunks[0]!;
    if (first.length === bytes) this.chunks.shift();
    else this.chunks[0] = first.subarray(bytes);
    this.size -= bytes;
  }
}

/** Splits a byte stream into frames and decodes each body as UTF-8 JSON (see FrameSplitter). */
export class FrameReader {
  private readonly splitter: FrameSplitter;

  constructor(maxFrame: number = DEFAULT_MAX_FRAME) {
    this.splitter = new FrameSplitter(maxFrame);
  }

  /** Bytes received and not yet part of a complete frame. */
  get pending(): number {
    return this.splitter.pending;
  }

  push(chunk: Buffer): FrameEvent[] {
    // Decoded as each is cut: no array of raw frames between (every request comes here).
    return this.splitter.split<FrameEvent>(chunk, parse, oversized);
  }
}

function withFrame<T>(frames: T[] | undefined, frame: T): T[] {
  if (frames === undefined) return [frame];
  frames.push(frame);
  return frames;
}

const rawFrame = (body: Buffer): RawFrame => ({ kind: 'frame', body });
const oversized = (length: number): { kind: 'oversized'; length: number } => ({ kind: 'oversized', length });

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function parse(body: Buffer): FrameEvent {
  let text: string;
  try {
    text = strictUtf8.decode(body);
  } catch {
    return { kind: 'invalid', reason: 'the frame is not valid UTF-8' };
  }
  try {
    return { kind: 'message', value: parseJson(text) };
  } catch {
    return { kind: 'invalid', reason: 'the frame is not valid JSON' };
  }
}
