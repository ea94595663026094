// The files a summary's `## Files` section names, read from the disk: at submission, what
// the rules judge (references.ts); at hand-over, their current contents for the memory
// (memory.ts). Both apply the rules a tool call's read is judged by: a path inside recap's
// files, or one that leads there through a symlink made since, is refused, never read.
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
import { isAbsolute, normalize, relative, resolve } from 'node:path';
import type { DecideContext } from '../events/decision.js';
import type { FileReference } from '../events/events.js';
import { inside } from '../events/pathNames.js';
import { protectionRefusal } from '../events/protection.js';
import { MAX_REFERENCE_BYTES, type ReferenceFact, type ReferenceFacts } from '../events/references.js';
import { referenceSpec, summaryParts, type ParsedReference } from '../events/summaryParts.js';
import type { HandedFile } from '../events/memory.js';
import type { TokenCounter } from '../events/tokens.js';

type Judge = Pick<DecideContext, 'protected' | 'recapPaths'> & { count: TokenCounter };

/** What the disk holds for each file a summary names, by referenceSpec (nothing when it names none). */
export async function lookUpReferences(text: string, required: readonly string[], project: string | undefined, judge: Judge): Promise<ReferenceFacts> {
  const { references } = summaryParts(text, required);
  const facts: Record<string, ReferenceFact> = {};
  for (const ref of references) facts[referenceSpec(ref)] ??= await lookUp(ref, project, judge);
  return facts;
}

/** The newest summary's files as they are now, each marked against what it was at submission. */
export async function filesNow(refs: readonly FileReference[], project: string | undefined, judge: Judge): Promise<HandedFile[]> {
  return Promise.all(
    refs.map(async (ref): Promise<HandedFile> => {
      const fact = await lookUp(ref, project, judge, true);
      if (fact.state === 'missing' || fact.state === 'folder') return { ref, status: 'gone' };
      if (fact.state !== 'file') return { ref, status: 'refused', why: refusalOf(fact) };
      if (ref.mode === 'ref') return { ref, status: 'named' };
      return { ref, status: fact.sha256 === ref.sha256 ? 'unchanged' : 'changed', content: fact.content ?? '' };
    }),
  );
}

function refusalOf(fact: ReferenceFact): string {
  switch (fact.state) {
    case 'refused':
      return fact.why;
    case 'outside':
      return 'it now leads outside the project';
    case 'tooLarge':
      return `it is now ${Math.round(fact.bytes / 1024 / 1024)} MB`;
    default:
      return 'the job has no project folder';
  }
}

type Found = ReferenceFact & { content?: string };

async function lookUp(ref: ParsedReference, project: string | undefined, judge: Judge, keep = false): Promise<Found> {
  if (project === undefined) return { state: 'noProject' };
  const spelled = isAbsolute(ref.path) ? normalize(ref.path) : resolve(project, ref.path);
  if (!inside(spelled, project)) return { state: 'outside' };
  const call = { name: 'Files', kind: 'read' as const, paths: [spelled] };
  const refusal = protectionRefusal(call, project, judge.protected, judge.recapPaths);
  if (refusal !== undefined) return { state: 'refused', why: refusal };
  let real: string;
  try {
    real = await realpath(spelled);
    if (!inside(real, await realpath(project))) return { state: 'outside' };
  } catch {
    return { state: 'missing' };
  }
  // What wires recap in may be read by a tool, but is not memory to hand over.
  const wired = (judge.protected.readOnly ?? []).find((p) => inside(spelled, p) || inside(real, p));
  if (wired !== undefined) return { state: 'refused', why: `it is one of recap's files (${wired})` };
  return read(ref, real, relative(project, spelled), judge.count, keep);
}

async function read(ref: ParsedReference, real: string, path: string, count: TokenCounter, keep: boolean): Promise<Found> {
  // Never blocking: a named pipe planted at the path must not hold the daemon up.
  const file = await open(real, constants.O_RDONLY | constants.O_NONBLOCK).catch(() => undefined);
  if (file === undefined) return { state: 'missing' };
  try {
    const stat = await file.stat();
    if (stat.isDirectory()) return { state: 'folder' };
    if (!stat.isFile()) return { state: 'refused', why: 'it is not a regular file' };
    if (stat.size > MAX_REFERENCE_BYTES) return { state: 'tooLarge', bytes: stat.size };
    const bytes = await file.readFile();
    if (ref.mode === 'read' && bytes.includes(0)) return { state: 'refused', why: 'it is binary, not text: name it as a ref' };
    const text = bytes.toString('utf8');
    const lines = text.split('\n');
    // A file's last line break ends its last line, it does not begin another.
    const total = text.endsWith('\n') ? lines.length - 1 : lines.length;
    const inRange = ref.start === undefined || (ref.start >= 1 && (ref.end ?? ref.start) >= ref.start && (ref.end ?? ref.start) <= total);
    const content = ref.start === undefined || !inRange ? text : lines.slice(ref.start - 1, ref.end ?? ref.start).join('\n');
    const sha256 = createHash('sha256').update(content).digest('hex');
    const tokens = ref.mode === 'read' && inRange ? count(content) : 0;
    return { state: 'file', path, lines: total, sha256, tokens, ...(keep ? { content } : {}) };
  } finally {
    await file.close();
  }
}
