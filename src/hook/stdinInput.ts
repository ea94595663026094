// recap-hook's input: the first JSON object on stdin, read with a deadline, as the raw input
// the ingress judges (ingress.ts). Node built-ins only.
import { MAX_HOOK_PAYLOAD } from '../common/frames.js';
import { HEAD_BYTES, type RawInput } from './ingress.js';

/** How long stdin may stay silent; a payload still arriving (64 MiB takes a while) may go on until STDIN_TOTAL_MS. */
const STDIN_DEADLINE_MS = 2000;
const STDIN_TOTAL_MS = 5000;

/**
 * Finds where the first JSON object on a byte stream ends, a chunk at a time, keeping its
 * place between chunks: a 64 MiB payload is scanned once, not once per chunk. Bytes, not
 * characters: UTF-8 never puts an ASCII byte inside a multi-byte character.
 */
class ObjectEnd {
  private depth = 0;
  private inString = false;
  private escaped = false;
  private started = false;
  /** Set when the stream does not start with `{`. */
  notAnObject = false;

  /** The index in `chunk` just past the object's end, if it ends in this chunk. */
  scan(chunk: Buffer): number | undefined {
    for (let i = 0; i < chunk.length; i += 1) {
      const c = chunk[i]!;
      if (!this.started) {
        if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
        if (c !== 0x7b) {
          this.notAnObject = true;
          return undefined;
        }
        this.started = true;
      }
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 0x5c) this.escaped = true;
        else if (c === 0x22) this.inString = false;
      } else if (c === 0x22) this.inString = true;
      else if (c === 0x7b || c === 0x5b) this.depth += 1;
      else if (c === 0x7d || c === 0x5d) {
        this.depth -= 1;
        if (this.depth === 0) return i + 1;
      }
    }
    return undefined;
  }
}

/**
 * The first complete JSON object on stdin: some agents keep stdin open after writing it.
 * Read through the stdin stream, not fs.read: a read blocked in Node's thread pool on an
 * open pipe would keep the process from exiting after the deadline. Past MAX_HOOK_PAYLOAD
 * nothing more is kept: a tool call that large is refused; a prompt is cut there and counted
 * as far as it goes (truncatedPrompt). Input that does not start an object is given whole as
 * far as it came, for the ingress to say why it is not one.
 */
export function readStdin(): Promise<RawInput> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const end = new ObjectEnd();
    const head = () => Buffer.concat(chunks, Math.min(size, HEAD_BYTES)).subarray(0, HEAD_BYTES).toString('utf8');
    let settled = false;
    const done = (input: RawInput) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      process.stdin.removeAllListeners('data');
      process.stdin.pause();
      resolve(input);
    };
    const whole = () => done({ kind: 'whole', text: Buffer.concat(chunks, size).toString('utf8') });
    const late = () => done({ kind: 'failed', why: `the hook input did not arrive whole within ${STDIN_DEADLINE_MS / 1000} s`, head: head() });
    let timer = setTimeout(late, STDIN_DEADLINE_MS);
    const started = Date.now();
    process.stdin.on('data', (chunk: Buffer) => {
      clearTimeout(timer);
      timer = setTimeout(late, Math.max(1, Math.min(STDIN_DEADLINE_MS, started + STDIN_TOTAL_MS - Date.now())));
      const at = end.scan(chunk);
      if (end.notAnObject) {
        chunks.push(chunk);
        size += chunk.length;
        whole();
        return;
      }
      const kept = at === undefined ? chunk : chunk.subarray(0, at);
      if (size + kept.length > MAX_HOOK_PAYLOAD) {
        // What fits is kept: a prompt this large is still counted as far as it goes.
        const room = MAX_HOOK_PAYLOAD - size;
        chunks.push(kept.subarray(0, room));
        size += room;
        const prefix = Buffer.concat(chunks, size).toString('utf8');
        done({ kind: 'oversized', head: prefix.slice(0, HEAD_BYTES), prefix });
        return;
      }
      chunks.push(kept);
      size += kept.length;
      if (at !== undefined) whole();
    });
    process.stdin.once('end', whole);
    process.stdin.once('error', (error) => done({ kind: 'failed', why: `stdin could not be read (${error.message})`, head: head() }));
  });
}
