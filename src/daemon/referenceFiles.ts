// The files a summary's `## Files` section names, read from the disk: at submission, what
// the rules judge (references.ts); at hand-over, their current contents for the memory
// (memory.ts). Both apply the rules a tool call's read is judged by: a path inside recap's
// files, or one that leads there through a symlink made since, is refused, never read. The
// work is bounded: at most MAX_REFERENCES files, at most MAX_REFERENCE_BYTES of each, one
// file at a time, and at hand-over no more contents in all than the files' budget can show.
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open, realpath, type FileHandle } from 'node:fs/promises';
import { platform } from '../platform/choose.js';
import { isAbsolute, normalize, relative, resolve } from 'node:path';
import type { DecideContext } from '../events/decision.js';
import type { FileReference } from '../events/events.js';
import { inside } from '../events/pathNames.js';
import { protectionRefusal } from '../events/protection.js';
import { factKey, MAX_REFERENCE_BYTES, type ReferenceFact, type ReferenceFacts } from '../events/references.js';
import { MAX_REFERENCES, summaryParts, type ParsedReference } from '../events/summaryParts.js';
import type { HandedFile } from '../events/memory.js';
import type { TokenCounter } from '../events/tokens.js';

type Judge = Pick<DecideContext, 'protected' | 'recapPaths'> & { count: TokenCounter };

/** Bytes of file contents handed over per token of the files' budget: more than any text needs. */
const BYTES_PER_TOKEN = 8;

/** What the disk holds for each file a summary names, by factKey (nothing when it names none, or too many to look up). */
export async function lookUpReferences(text: string, required: readonly string[], project: string | undefined, judge: Judge): Promise<ReferenceFacts> {
  const { references } = summaryParts(text, required);
  const facts: Record<string, ReferenceFact> = {};
  if (references.length > MAX_REFERENCES) return facts;
  for (const ref of references) facts[factKey(ref)] ??= await lookUp(ref, project, judge, 'check');
  return facts;
}

/**
 * The newest summary's files as they are now, each marked against what it was at submission:
 * one after another, the contents kept within `budget` tokens' worth of bytes in all.
 */
export async function filesNow(refs: readonly FileReference[], project: string | undefined, judge: Judge, budget: number): Promise<HandedFile[]> {
  const files: HandedFile[] = [];
  let left = budget * BYTES_PER_TOKEN;
  for (const ref of refs) {
    const fact = await lookUp(ref, project, judge, ref.mode === 'read' && left > 0 ? 'keep' : 'stat');
    const file = handed(ref, fact, left);
    files.push(file);
    if ('content' in file) left -= Buffer.byteLength(file.content);
  }
  return files;
}

function handed(ref: FileReference, fact: Found, left: number): HandedFile {
  if (fact.state === 'missing' || fact.state === 'folder') return { ref, status: 'gone' };
  if (fact.state !== 'file') return { ref, status: 'refused', why: refusalOf(fact) };
  if (ref.mode === 'ref') return { ref, status: 'named' };
  if (fact.content === undefined) return { ref, status: 'refused', why: 'the files before it took the whole budget' };
  if (fact.outOfRange) return { ref, status: 'refused', why: `the file has ${fact.lines} lines now: the range is past its end` };
  const status = fact.sha256 === ref.sha256 ? 'unchanged' : 'changed';
  if (Buffer.byteLength(fact.content) <= left) return { ref, status, content: fact.content };
  // More than the budget can show: its head, whole lines, and how many lines it has.
  const head = fact.content.slice(0, left);
  const lines = fact.content.split('\n').length;
  return { ref, status, content: head.slice(0, Math.max(0, head.lastIndexOf('\n'))), lines };
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

/** `check`: read and hash (at submission); `keep`: read and keep the contents (a read at hand-over); `stat`: only that it is there. */
type Depth = 'check' | 'keep' | 'stat';

type Found = ReferenceFact & { content?: string; outOfRange?: boolean };

async function lookUp(ref: ParsedReference, project: string | undefined, judge: Judge, depth: Depth): Promise<Found> {
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
 * Where an open file really is, as the system says (src/platform): a link swapped in between
 * the look and the open is seen here. Undefined where the system does not say.
 */
function openedAt(fd: number): Promise<string | undefined> {
  return platform().openedAt(fd);
}

type Reading = { root: string; path: string; judge: Judge; depth: Depth };

async function read(ref: ParsedReference, real: string, reading: Reading): Promise<Found> {
  // Never blocking (a named pipe planted at the path must not hold the daemon up), and never
  // through a link made since the path was resolved.
  const file = await open(real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW).catch(() => undefined);
  if (file === undefined) return { state: 'missing' };
  try {
    return await readOpen(ref, file, reading);
  } finally {
    await file.close();
  }
}

async function readOpen(ref: ParsedReference, file: FileHandle, { root, path, judge, depth }: Reading): Promise<Found> {
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
  // At most the most recap reads, and one byte more to tell a file that grew past it since the stat.
  const buffer = Buffer.alloc(Math.min(stat.size, MAX_REFERENCE_BYTES) + 1);
  const { bytesRead } = await file.read(buffer, 0, buffer.length, 0);
  if (bytesRead > MAX_REFERENCE_BYTES) return { state: 'tooLarge', bytes: bytesRead };
  const data = buffer.subarray(0, bytesRead);
  if (ref.mode === 'read' && data.includes(0)) return { state: 'refused', why: 'it is binary, not text: name it as a ref' };
  const text = data.toString('utf8');
  const lines = text.split('\n');
  // A file's last line break ends its last line, it does not begin another.
  const total = text.endsWith('\n') ? lines.length - 1 : lines.length;
  const end = ref.end ?? ref.start;
  const inRange = ref.start === undefined || (ref.start >= 1 && end! >= ref.start && end! <= total);
  const content = ref.start === undefined || !inRange ? text : lines.slice(ref.start - 1, end).join('\n');
  const sha256 = createHash('sha256').update(content).digest('hex');
  // Counted at submission only: at hand-over the memory measures what it shows.
  const tokens = depth === 'check' && ref.mode === 'read' && inRange ? judge.count(content) : 0;
  return { state: 'file', path, lines: total, sha256, tokens, ...(depth === 'keep' ? { content, outOfRange: !inRange } : {}) };
}
