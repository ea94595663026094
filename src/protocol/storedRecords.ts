// The `events` op's answer with `stored`: each event as the log stores it, for `recap export`
// to write out as JSON Lines in its own process, so the daemon only reads and copies (its
// thread also answers the hooks). One record per event: its sequence number in 8 bytes (two
// big-endian 32-bit halves), its stored value's length in 4, then the value.

const HEAD = 12;

/** Records of events added in order (as storedLines.ts's StoredLines takes them), one buffer at the end. */
export class StoredRecords {
  count = 0;
  private readonly seqs: number[] = [];
  private readonly values: Uint8Array[] = [];
  private size = 0;

  /** Event `seq`, stored as `bytes` from `start` to `end` (a place in its pack). */
  add(seq: number, bytes: Uint8Array, start: number, end: number): void {
    this.count += 1;
    this.seqs.push(seq);
    this.values.push(bytes.subarray(start, end));
    this.size += HEAD + end - start;
  }

  finish(): Buffer {
    const out = Buffer.allocUnsafe(this.size);
    let at = 0;
    for (let i = 0; i < this.seqs.length; i += 1) {
      const seq = this.seqs[i]!;
      const value = this.values[i]!;
      out.writeUInt32BE(Math.floor(seq / 2 ** 32), at);
      out.writeUInt32BE(seq >>> 0, at + 4);
      out.writeUInt32BE(value.length, at + 8);
      out.set(value, at + HEAD);
      at += HEAD + value.length;
    }
    return out;
  }
}

/** Hands each record of `records` to `take`: its sequence number and its stored value's place. */
export function eachStored(records: Uint8Array, take: (seq: number, bytes: Uint8Array, start: number, end: number) => void): void {
  const view = new DataView(records.buffer, records.byteOffset, records.byteLength);
  for (let at = 0; at < records.length;) {
    if (at + HEAD > records.length) throw new Error(`the recap daemon sent a stored event cut short at byte ${at}`);
    const seq = view.getUint32(at) * 2 ** 32 + view.getUint32(at + 4);
    const end = at + HEAD + view.getUint32(at + 8);
    if (end > records.length) throw new Error(`the recap daemon sent a stored event cut short at byte ${at}`);
    take(seq, records, at + HEAD, end);
    at = end;
  }
}
