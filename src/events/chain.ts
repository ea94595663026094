// The summary chain's links: each entry's hash covers the previous hash and the entry's
// canonical content, so changing any accepted summary breaks every link after it.
import { hash } from 'node:crypto';
import { canonicalJson } from './canonical.js';
import type { SummaryAccepted, SummaryAmended } from './events.js';

export const GENESIS_HASH = '0'.repeat(64);

export type ChainContent = Omit<SummaryAccepted['data'], 'hash' | 'prevHash'>;

export function entryHash(prevHash: string, content: ChainContent | AmendmentContent): string {
  // One call over the whole text: a Hash object per entry costs about as much as hashing it (`recap verify` hashes every entry).
  return hash('sha256', `${prevHash}\n${canonicalJson(content)}`, 'hex');
}

/** Recomputes an accepted summary's hash from its stored fields. */
export function recomputeHash(data: SummaryAccepted['data']): string {
  const { hash: _hash, prevHash, ...content } = data;
  return entryHash(prevHash, content);
}

export type AmendmentContent = Omit<SummaryAmended['data'], 'hash' | 'entryHash'>;

/** An amendment's hash: over the hash of the entry it amends and its own canonical content. */
export function amendmentHash(amendedEntryHash: string, content: AmendmentContent): string {
  return entryHash(amendedEntryHash, content);
}

/** Recomputes an amendment's hash from its stored fields. */
export function recomputeAmendmentHash(data: SummaryAmended['data']): string {
  const { hash: _hash, entryHash: amended, ...content } = data;
  return amendmentHash(amended, content);
}
