// The rules of a summary's `## Files` section, judged on what the daemon found on the disk
// for each reference (ReferenceFact): the file exists, lies inside the job's project, is not
// one of recap's files or one the agent may not read; a range lies within the file; and the
// `read` entries together fit REF_READ_BUDGET tokens, so the next session's memory can carry
// them. Every problem is reported at once, each said as what to change.
import type { FileReference } from './events.js';
import { MAX_REFERENCES, referenceSpec, type ParsedReference } from './summaryParts.js';

/** What a reference leads to on the disk, as the daemon found it (referenceFiles.ts). */
export type ReferenceFact =
  | { state: 'file'; path: string; lines: number; sha256: string; tokens: number }
  | { state: 'missing' | 'outside' | 'folder' | 'noProject' }
  | { state: 'refused'; why: string }
  | { state: 'tooLarge'; bytes: number };

/** The facts of a summary's references, by factKey. */
export type ReferenceFacts = Readonly<Record<string, ReferenceFact>>;

/** A reference's key among the facts: a read and a ref of the same file are looked up apart (only a read is measured). */
export const factKey = (ref: ParsedReference): string => `${ref.mode} ${referenceSpec(ref)}`;

export type ReferenceVerdict = { problems: string[]; accepted: FileReference[] };

/** The most bytes recap reads of one referenced file. */
export const MAX_REFERENCE_BYTES = 4 * 1024 * 1024;

export function judgeReferences(refs: readonly ParsedReference[], facts: ReferenceFacts, budget: number): ReferenceVerdict {
  const problems: string[] = [];
  const accepted: FileReference[] = [];
  // Too many to look up: summaryParts says so, and none is judged.
  if (refs.length > MAX_REFERENCES) return { problems, accepted };
  if (budget === 0 && refs.length > 0) return { problems: ['Files are off here (REF_READ_BUDGET=0): leave the section out, and name the files in the sections'], accepted };
  const seen = new Set<string>();
  for (const ref of refs) {
    const spec = referenceSpec(ref);
    if (seen.has(factKey(ref))) {
      problems.push(`${spec} is named twice in Files; keep one line for it`);
      continue;
    }
    seen.add(factKey(ref));
    const fact = facts[factKey(ref)];
    const problem = fact === undefined ? `${spec} was not looked up` : factProblem(ref, spec, fact);
    if (problem !== undefined || fact?.state !== 'file') {
      problems.push(problem ?? `${spec} cannot be used`);
      continue;
    }
    accepted.push({ mode: ref.mode, path: fact.path, ...range(ref), why: ref.why, sha256: fact.sha256, tokens: fact.tokens });
  }
  const reads = accepted.filter((r) => r.mode === 'read');
  const needed = reads.reduce((sum, r) => sum + r.tokens, 0);
  if (needed > budget) problems.push(overBudget(reads, needed, budget));
  return { problems, accepted };
}

const range = (ref: ParsedReference) => (ref.start === undefined ? {} : { start: ref.start, end: ref.end ?? ref.start });

function factProblem(ref: ParsedReference, spec: string, fact: ReferenceFact): string | undefined {
  switch (fact.state) {
    case 'noProject':
      return `${spec}: this job has no project folder, so Files cannot name files; leave the section out`;
    case 'missing':
      return `${spec} does not exist in the project: name a file that exists, relative to the project's folder`;
    case 'outside':
      return `${spec} lies outside the job's project: name only files inside it`;
    case 'folder':
      return `${spec} is a folder: name the files in it that matter`;
    case 'refused':
      return `${spec} cannot be named: ${fact.why}`;
    case 'tooLarge':
      return `${spec} is ${Math.round(fact.bytes / 1024 / 1024)} MB, more than recap reads (${MAX_REFERENCE_BYTES / 1024 / 1024} MB): ${ref.mode === 'read' ? 'name a line range or ' : ''}name it as a ref`;
    case 'file':
      if (ref.start === undefined) return undefined;
      if (ref.start < 1 || (ref.end ?? ref.start) < ref.start) return `${spec} has the range ${ref.start}-${ref.end}: a range is START-END, from line 1, START not after END`;
      if ((ref.end ?? ref.start) > fact.lines) return `${spec} ends after the file's last line (${fact.lines}): name lines that exist`;
      return undefined;
  }
}

function overBudget(reads: FileReference[], needed: number, budget: number): string {
  const largest = [...reads].sort((a, b) => b.tokens - a.tokens);
  const drop: string[] = [];
  let left = needed;
  for (const r of largest) {
    if (left <= budget) break;
    drop.push(`${referenceSpec(r)} (${r.tokens} tokens)`);
    left -= r.tokens;
  }
  return (
    `the read entries of Files need ${needed} tokens; at most ${budget} (REF_READ_BUDGET) are handed over: ` +
    `narrow them to line ranges, or make some refs, e.g. ${drop.join(', ')}`
  );
}
