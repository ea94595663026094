// How a machine's chain of a repository travels through git (`recap sync`): a tree with
// `chain.json` (whose chain: the machine's id, host and git author, the repository's key)
// and one file per summary, `entries/<index>.json` (the entry as its machine accepted it,
// with its amendments). Only summaries go: never an interaction, a prompt or a Q&A, and a
// redacted summary goes without its text. Reading it back trusts nothing: each file is
// parsed against its schema and bounded in size before the chain is checked (chainImport.ts).
import { z } from 'zod';
import type { ChainOrigin, SummaryAccepted, SummaryAmended } from './events.js';

export const CHAIN_FORMAT = 1;
export const HEAD_FILE = 'chain.json';
export const ENTRIES_DIR = 'entries';

/** The most entries a fetched chain may hold, and the most characters one file may: a bound on what a remote can make the daemon read. */
export const MAX_CHAIN_ENTRIES = 20_000;
export const MAX_FILE_CHARS = 2 * 1024 * 1024;

/** Whose chain a tree is. */
export type ChainHead = { format: number; repo: string } & ChainOrigin;

/** One summary as it travels: its place in its machine's chain, its number in that machine's log, the entry and its amendments. */
export type ChainRecord = { index: number; seq: number; entry: SummaryAccepted['data']; amendments?: SummaryAmended['data'][] };

/** A chain as read from a remote's tree, every file parsed. */
export type FetchedChain = { head: ChainHead; records: ChainRecord[] };

/** The file of entry `index`: numbered so the tree lists them in order. */
export function entryPath(index: number): string {
  return `${ENTRIES_DIR}/${String(index).padStart(8, '0')}.json`;
}

/** A chain's files, by path. */
export function chainFiles(head: ChainHead, records: readonly ChainRecord[]): Map<string, string> {
  const files = new Map<string, string>([[HEAD_FILE, `${JSON.stringify(head)}\n`]]);
  for (const record of records) files.set(entryPath(record.index), `${JSON.stringify(record)}\n`);
  return files;
}

const hex64 = z.string().regex(/^[0-9a-f]{64}$/);
const time = z.number().finite();
const count = z.number().int().min(0);
const word = z.string().max(200);
const tally = z.object({ heading: z.string().max(500), tokens: count }).strict();
const secretTally = z.object({ kind: z.string().max(200), count: count }).strict();
const fileRef = z
  .object({
    mode: z.enum(['read', 'ref']),
    path: z.string().max(4096),
    start: count.optional(),
    end: count.optional(),
    why: z.string().max(1000),
    sha256: z.string().max(64),
    tokens: count,
  })
  .strict();

const accepted = z
  .object({
    job: word,
    level: count,
    sections: z.array(tally).max(200),
    text: z.string(),
    tokens: count,
    coversThrough: count,
    topic: word.optional(),
    rolls: z.array(count).max(10_000).optional(),
    gist: z.string().max(4000).optional(),
    gistBy: z.enum(['agent', 'recap']).optional(),
    refs: z.array(fileRef).max(200).optional(),
    filesRoot: z.string().max(4096).optional(),
    redacted: z.literal(true).optional(),
    decisions: count.optional(),
    secrets: z.array(secretTally).max(200).optional(),
    prevHash: hex64,
    hash: hex64,
    time,
  })
  .strict();

const callerSchema = z.object({ pid: count, program: z.string().max(4096), ancestry: z.string().max(4000) }).strict();

const amendment = z
  .object({
    job: word,
    entry: count,
    text: z.string(),
    sections: z.array(tally).max(200),
    tokens: count,
    gist: z.string().max(4000),
    gistBy: z.enum(['agent', 'recap']),
    refs: z.array(fileRef).max(200).optional(),
    filesRoot: z.string().max(4096).optional(),
    by: callerSchema.optional(),
    secrets: z.array(secretTally).max(200).optional(),
    redacted: z.literal(true).optional(),
    decisions: count.optional(),
    entryHash: hex64,
    hash: hex64,
    time,
  })
  .strict();

const recordSchema = z.object({ index: count, seq: count, entry: accepted, amendments: z.array(amendment).max(1000).optional() }).strict();

const headSchema = z
  .object({
    format: z.number().int(),
    repo: z.string().regex(/^[0-9a-f]{16}$/),
    machine: z.string().regex(/^[0-9a-f]{16,64}$/),
    host: z.string().min(1).max(255),
    author: z.string().max(320).optional(),
  })
  .strict();

export type ReadChain = { ok: true; chain: FetchedChain } | { ok: false; problem: string };

/**
 * A chain from its files (path → text), every file checked against its schema: a problem
 * names the file and what is wrong, and the chain is not read further.
 */
export function readChain(files: ReadonlyMap<string, string>): ReadChain {
  const headText = files.get(HEAD_FILE);
  if (headText === undefined) return { ok: false, problem: `it has no ${HEAD_FILE}: it is not a chain recap wrote` };
  const head = parseFile(HEAD_FILE, headText, headSchema);
  if (!head.ok) return head;
  if (head.value.format > CHAIN_FORMAT) {
    return { ok: false, problem: `it was written in chain format ${head.value.format} by a newer recap (this one reads format ${CHAIN_FORMAT}): update recap on this machine` };
  }
  const paths = [...files.keys()].filter((path) => path !== HEAD_FILE).sort();
  if (paths.length > MAX_CHAIN_ENTRIES) return { ok: false, problem: `it holds ${paths.length} entries, more than the ${MAX_CHAIN_ENTRIES} recap reads` };
  const records: ChainRecord[] = [];
  for (const [index, path] of paths.entries()) {
    if (path !== entryPath(index)) return { ok: false, problem: `${path} is not where entry ${index + 1} belongs (${entryPath(index)}): the chain has a gap or a stray file` };
    const record = parseFile(path, files.get(path)!, recordSchema);
    if (!record.ok) return record;
    if (record.value.index !== index) return { ok: false, problem: `${path} says it is entry ${record.value.index + 1}, not ${index + 1}` };
    records.push(record.value as ChainRecord);
  }
  return { ok: true, chain: { head: head.value as ChainHead, records } };
}

function parseFile<T>(path: string, text: string, schema: z.ZodType<T>): { ok: true; value: T } | { ok: false; problem: string } {
  if (text.length > MAX_FILE_CHARS) return { ok: false, problem: `${path} is larger than the ${MAX_FILE_CHARS} characters recap reads` };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, problem: `${path} is not JSON` };
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0]!;
  return { ok: false, problem: `${path}: ${issue.path.join('.') || 'its content'}: ${issue.message}` };
}
