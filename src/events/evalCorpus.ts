// A labelled case of `recap eval`'s corpus, read from its text: a window of interactions (or
// the summaries a rollup rolls up), the job's earlier summaries, and one submission, labelled
// genuine (it must be accepted) or junk (it must be rejected). A case is blocks, each opened
// by a line `@@@ <kind>`:
// - `interaction`: one text of the window; `rolled`: a summary the rollup rolls up;
//   `earlier`: an earlier accepted summary of the job; `summary`: the submission;
// - `expect <words>`: junk only, a fragment of the message that should reject it;
// - `window <file>`: the interactions of another case, by its path under the corpus folder;
// - `profile <name>`: the template it is written in (src/events/profiles.ts; default: default);
// - `domain <name>`: its field (default: the domain of the case a `window` line names, else
//   the first word of its file's name, `legal-nda.md`: legal).
import { PROFILES, type ProfileName } from './profiles.js';

export type Label = 'genuine' | 'junk';

export const LABELS: readonly Label[] = ['genuine', 'junk'];

export type EvalCase = {
  /** Its path under the corpus folder, `genuine/legal-nda.md`. */
  name: string;
  label: Label;
  profile: ProfileName;
  domain: string;
  interactions: string[];
  rolled: string[];
  earlier: string[];
  summary: string;
  expect: string[];
};

/** A case that cannot be read as one, with what to change. */
export class CaseError extends Error {}

const isProfile = (name: string): name is ProfileName => Object.hasOwn(PROFILES, name);

/** The domain a file's name gives: its first word. */
export const domainOf = (name: string): string => (name.split('/').at(-1) ?? name).replace(/\.md$/, '').split(/[-_.]/)[0] || 'other';

/**
 * The case of `name` (its path under the corpus folder) from its text; `windowOf` gives the
 * case a `window` line names (the caller reads that file).
 */
export function parseCase(name: string, label: Label, text: string, windowOf: (path: string) => EvalCase): EvalCase {
  const c: EvalCase = { name, label, profile: 'default', domain: domainOf(name), interactions: [], rolled: [], earlier: [], summary: '', expect: [] };
  let kind: string | undefined;
  let block: string[] = [];
  let domain: string | undefined;
  const close = () => {
    const body = block.join('\n').trim();
    if (kind === 'interaction') c.interactions.push(body);
    else if (kind === 'rolled') c.rolled.push(body);
    else if (kind === 'earlier') c.earlier.push(body);
    else if (kind === 'summary') c.summary = body;
    block = [];
  };
  for (const line of text.split(/\r?\n/)) {
    const marker = /^@@@ (\w+)\s*(.*)$/.exec(line);
    if (!marker) {
      block.push(line);
      continue;
    }
    close();
    kind = marker[1]!;
    const value = marker[2]!.trim();
    if (kind === 'expect') c.expect.push(value);
    else if (kind === 'window') {
      const window = windowOf(value);
      c.interactions.push(...window.interactions);
      c.domain = window.domain;
    } else if (kind === 'profile') {
      if (!isProfile(value)) throw new CaseError(`${name}: unknown profile "${value}"; use one of ${Object.keys(PROFILES).join(', ')}`);
      c.profile = value;
    } else if (kind === 'domain') domain = value;
    else if (!['interaction', 'rolled', 'earlier', 'summary'].includes(kind)) {
      throw new CaseError(`${name}: unknown block "@@@ ${kind}"; blocks are interaction, rolled, earlier, summary, expect, window, profile and domain`);
    }
  }
  close();
  if (domain !== undefined) c.domain = domain;
  if (c.summary === '') throw new CaseError(`${name}: no "@@@ summary" block; a case needs the summary submitted`);
  if (c.interactions.length + c.rolled.length === 0) throw new CaseError(`${name}: no "@@@ interaction" or "@@@ rolled" block; a case needs the window it summarizes`);
  return c;
}
