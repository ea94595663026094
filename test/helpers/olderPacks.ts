// A log packed as a recap from before PACK_BYTES packed it: each range of events in one pack,
// however large, written straight to its LevelDB (the daemon stopped).
import { Level } from 'level';
import { decodeKey, encodeKey } from '../../src/daemon/codec.js';
import { encodePack, runOf } from '../../src/daemon/eventPacks.js';
import { formatPut, packKey } from '../../src/daemon/logKeys.js';

/**
 * Puts each whole range of `size` events up to `through` (keys of their own) in one pack; the
 * pack holding `damaged` gets a format byte no recap writes. Resolves to the packs' sizes, in order.
 */
export async function packedByOlderRecap(path: string, through: number, { size = 8, damaged }: { size?: number; damaged?: number } = {}): Promise<number[]> {
  const db = new Level<Uint8Array, Uint8Array>(path, { keyEncoding: 'view', valueEncoding: 'view' });
  const sizes: number[] = [];
  try {
    for (let first = 1; first + size - 1 <= through; first += size) {
      const last = first + size - 1;
      const entries = await db.iterator({ gte: encodeKey(first), lte: encodeKey(last) }).all();
      const value = encodePack(
        runOf(
          entries.map(([key]) => decodeKey(key)),
          entries.map(([, v]) => v),
        ),
      );
      if (damaged !== undefined && first <= damaged && damaged <= last) value[0] = 9;
      await db.batch([{ type: 'put', key: packKey(first, last), value }, ...entries.map(([key]) => ({ type: 'del' as const, key })), formatPut()]);
      sizes.push(value.length);
    }
  } finally {
    await db.close();
  }
  return sizes;
}
