// The files a summary's `## Files` section names, read from the disk: at submission, what
// the rules judge (references.ts); at hand-over, their current contents for the memory
// (memory.ts). Both apply the rules a tool call's read is judged by: a path inside recap's
// files, or one that leads there through a symlink made since, is refused, never read.
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open, readlink, realpath } from 'node:fs/promises';
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
      const fact = await lookUp(ref, project, judge, ref.mode === 'read' ? 'keep' : 'stat');
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

/** `check`: read and hash (at submission); `keep`: and keep the contents (a read at hand-over); `stat`: no more than that it is there (a ref at hand-over). */
type Depth = 'check' | 'keep' | 'stat';

async function lookUp(ref: ParsedReference, project: string | undefined, judge: Judge, depth: Depth = 'check'): Promise<Found> {
  if (project === undefined) return { state: 'noProject' };
  const spelled = isAbsolute(ref.path) ? normalize(ref.path) : resolve(project, ref.path);
  if (!inside(spelled, project)) return { state: 'outside' };
  const call = { name: 'Files', kind: 'read' as const, paths: [spelled] };
  const refusal = protectionRefusal(call, project, judge.protected, judge.recapPaths);
  if (refusal !== undefined) return { state: 'refused', why: refusal };
  let real: string;
  let root: string;
  try {
    real = await realpath(spelled);
    root = await realpath(project);
    if (!inside(real, root)) return { state: 'outside' };
  } catch {
    return { state: 'missing' };
  }
  const wired = recapFile(judge, spelled, real);
  if (wired !== undefined) return { state: 'refused', why: wired };
  return read(ref, real, { root, path: relative(project, spelled), judge, depth });
}

/** Why a path is recap's own (what wires recap in may be read by a tool, but is not memory to hand over), if it is. */
function recapFile(judge: Judge, ...paths: string[]): string | undefined {
  const own = [...judge.protected.paths, ...(judge.protected.readOnly ?? [])].find((p) => paths.some((path) => inside(path, p)));
  return own === undefined ? undefined : `it is one of recap's files (${own})`;
}

/**
 * Where an open file really is, as the kernel says (Linux): a link swapped in between the
 * look and the open is seen here. Undefined where the system does not say.
 */
async function openedAt(fd: number): Promise<string | undefined> {
  return readlink(`/proc/self/fd/${fd}`).catch(() => undefined);
}

type Reading = { root: string; path: string; judge: Judge; depth: Depth };

async function read(ref: ParsedReference, real: string, { root, path, judge, depth }: Reading): Promise<Found> {
  // Never blocking (a named pipe planted at the path must not hold the daemon up), and never
  // through a link made since the path was resolved.
  const file = await open(real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW).catch(() => undefined);
  if (file === undefined) return { state: 'missing' };
  try {
    const at = await openedAt(file.fd);
    if (at !== undefined && !inside(at, root)) return { state: 'outside' };
    const own = at === undefined ? undefined : recapFile(judge, at);
    if (own !== undefined) return { state: 'refused', why: own };
    const stat = await file.stat();
    if (stat.isDirectory()) return { state: 'folder' };
    if (!stat.isFile()) return { state: 'refused', why: 'it is not a regular file' };
    // Another name for the same file may be one of recap's: its contents are not handed over.
    if (ref.mode === 'read' && stat.nlink > 1)
      return { state: 'refused', why: 'it has other names (hard links), so recap cannot tell it is not one of its own files: name it as a ref' };
    if (depth === 'stat') return { state: 'file', path, lines: 0, sha256: '', tokens: 0 };
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
    const tokens = ref.mode === 'read' && inRange ? judge.count(content) : 0;
    return { state: 'file', path, lines: total, sha256, tokens, ...(depth === 'keep' ? { content } : {}) };
  } finally {
    await file.close();
  }
}
