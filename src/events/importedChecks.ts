// What `recap verify` checks of other machines' entries (SummaryImported): each entry's hash
// and its amendments' (a redacted one by its link only, as this machine's are), and each
// entry's link to the entry before it on its own chain (its machine's, per topic), which
// must have been imported before it. Pure: the verifier hands in the events in log order.
import { GENESIS_HASH, recomputeAmendmentHash, recomputeHash } from './chain.js';
import { originLabel } from './entryText.js';
import type { SummaryImported } from './events.js';

export type ImportProblem = { what: string };

const short = (hash: string) => hash.slice(0, 12);

export class ImportedChecks {
  /** Each chain's entries imported so far: the hash each links to, by its own hash, and the entry linking to each hash. */
  private readonly chains = new Map<string, { links: Map<string, string>; linkedBy: Map<string, string> }>();

  /** The problems of one import; none when it verifies. */
  check(data: SummaryImported['data']): ImportProblem[] {
    const { entry, origin, originSeq, amendments = [] } = data;
    const named = `${originLabel(origin)}'s summary #${originSeq} (machine ${origin.machine}, entry ${data.index} of its chain)`;
    const problems: ImportProblem[] = [];
    if (!entry.redacted && recomputeHash(entry) !== entry.hash) {
      problems.push({ what: `${named} does not match its hash: its text or another field was changed after its machine accepted it` });
    }
    amendments.forEach((amendment, at) => {
      if (amendment.entryHash !== entry.hash) problems.push({ what: `${named}: its amendment ${at + 1} amends another entry (${short(amendment.entryHash)})` });
      else if (!amendment.redacted && recomputeAmendmentHash(amendment) !== amendment.hash) {
        problems.push({ what: `${named}: its amendment ${at + 1} does not match its hash: its text was changed after it was written` });
      }
    });
    const key = `${data.job}\n${origin.machine}\n${entry.topic ?? ''}`;
    const chain = this.chains.get(key) ?? { links: new Map<string, string>(), linkedBy: new Map<string, string>() };
    this.chains.set(key, chain);
    const known = chain.links.get(entry.hash);
    // Imported again (new amendments, a redaction there): the same entry, the same link.
    if (known !== undefined) {
      if (known !== entry.prevHash) problems.push({ what: `${named} was imported before with another link (${short(known)}, now ${short(entry.prevHash)})` });
      return problems;
    }
    if (entry.prevHash !== GENESIS_HASH && !chain.links.has(entry.prevHash)) {
      problems.push({ what: `${named}: the link is broken: previous hash ${short(entry.prevHash)} is no entry of that machine's chain imported before it` });
    }
    const sibling = chain.linkedBy.get(entry.prevHash);
    if (sibling !== undefined) problems.push({ what: `${named} and entry ${short(sibling)} both link to ${short(entry.prevHash)}: that machine's chain was rewritten` });
    else chain.linkedBy.set(entry.prevHash, entry.hash);
    chain.links.set(entry.hash, entry.prevHash);
    return problems;
  }
}
