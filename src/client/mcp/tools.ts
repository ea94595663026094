// recap's four MCP tools: for each, its description (which says how to read progressively:
// index lines first, `get` for an entry whole), its input schema, the one daemon request it
// makes, and the text it answers with. The daemon computes every answer; this file only
// asks and writes what it got.
import { z } from 'zod';
import type { DecisionEntry, IndexLine, SearchHit } from '../../protocol/answers.js';
import type { Op, RequestFields, ResponseOf } from '../../protocol/protocol.js';
import { shownSummary } from '../../protocol/shownSummary.js';
import type { RecapMcpTool } from '../../events/recapTools.js';
import { readTime, TIME_FORMS } from '../time.js';

/** The one request a tool makes; `where` are the fields the daemon finds the job by. */
export type Ask = <O extends Op>(op: O, fields: RequestFields<O>) => Promise<ResponseOf<O>>;

export type ToolAnswer = { text: string; structured: Record<string, unknown> };

export type RecapTool<S extends z.ZodRawShape> = {
  /** One of the names the gate knows as recap's (recapTools.ts). */
  name: RecapMcpTool;
  title: string;
  description: string;
  input: S;
  run(args: z.infer<z.ZodObject<S>>, ask: Ask): Promise<ToolAnswer>;
};

const utc = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** One entry as an index line: number, date, topic, gist, tokens. */
export function indexLine(e: IndexLine): string {
  const topic = e.topic === undefined ? '' : ` [${e.topic}]`;
  const marks = `${e.level > 0 ? ` rollup L${e.level}` : ''}${e.supersededBy !== undefined ? ` (amended by #${e.supersededBy})` : ''}${e.redacted ? ' (redacted)' : ''}`;
  return `#${e.seq}${e.from !== undefined ? ` [${e.from}]` : ''} ${utc(e.time)}${topic}${marks} — ${e.gist} (${e.tokens} tokens)`;
}

const GET_HINT = 'Call get with an entry number to read that entry whole.';

/** A time as the CLI reads it (recap search --since), in ms. */
const moment = (text: string) => readTime(text).ms;

const search: RecapTool<{
  query: z.ZodString;
  allJobs: z.ZodOptional<z.ZodBoolean>;
  topic: z.ZodOptional<z.ZodString>;
  since: z.ZodOptional<z.ZodString>;
  limit: z.ZodOptional<z.ZodNumber>;
}> = {
  name: 'search',
  title: "Search recap's summaries",
  description:
    "Full-text search over this project's recap summaries (what was asked, decided and done in earlier sessions). Returns index lines only: entry number, date, topic, gist, tokens, and the matching section with a snippet. " +
    GET_HINT,
  input: {
    query: z.string().min(1).describe('the words to look for'),
    allJobs: z.boolean().optional().describe("search every job's summaries, not only this project's"),
    topic: z.string().optional().describe('only summaries with this topic (as submitted with --topic)'),
    since: z.string().optional().describe(`only summaries from this time on: ${TIME_FORMS}`),
    limit: z.number().int().min(1).max(100).optional().describe('at most this many hits (default 10)'),
  },
  async run(args, ask) {
    const { hits } = await ask('search', {
      query: args.query,
      ...(args.allJobs !== undefined ? { allJobs: args.allJobs } : {}),
      ...(args.topic !== undefined ? { topic: args.topic } : {}),
      ...(args.since !== undefined ? { since: moment(args.since) } : {}),
      ...(args.limit !== undefined ? { limit: args.limit } : {}),
    } as RequestFields<'search'>);
    const lines = hits.map((h: SearchHit) => `${indexLine(h)}\n  in ${h.section}: ${h.snippet.replace(/\s+/g, ' ').trim()}`);
    const text =
      hits.length === 0
        ? `No summary matches ${JSON.stringify(args.query)}.`
        : `${hits.length} ${hits.length === 1 ? 'entry matches' : 'entries match'}, best first:\n${lines.join('\n')}\n\n${GET_HINT}`;
    return { text, structured: { hits } };
  },
};

const timeline: RecapTool<{ entry: z.ZodOptional<z.ZodNumber>; time: z.ZodOptional<z.ZodString>; before: z.ZodOptional<z.ZodNumber>; after: z.ZodOptional<z.ZodNumber> }> = {
  name: 'timeline',
  title: "recap's summaries around an entry or a moment",
  description:
    "This project's recap summaries around an entry number or a moment (else the newest), oldest first, as index lines: entry number, date, topic, gist, tokens. " + GET_HINT,
  input: {
    entry: z.number().int().min(1).optional().describe('the entry number to center on (give this or time, not both)'),
    time: z.string().optional().describe(`the moment to center on: ${TIME_FORMS}`),
    before: z.number().int().min(0).max(50).optional().describe('entries before it (default 3)'),
    after: z.number().int().min(0).max(50).optional().describe('entries after it (default 3)'),
  },
  async run(args, ask) {
    const { entries } = await ask('timeline', {
      ...(args.entry !== undefined ? { seq: args.entry } : {}),
      ...(args.time !== undefined ? { time: moment(args.time) } : {}),
      ...(args.before !== undefined ? { before: args.before } : {}),
      ...(args.after !== undefined ? { after: args.after } : {}),
    } as RequestFields<'timeline'>);
    const text = entries.length === 0 ? 'This job has no summaries yet.' : `${entries.map(indexLine).join('\n')}\n\n${GET_HINT}`;
    return { text, structured: { entries } };
  },
};

const get: RecapTool<{ entry: z.ZodNumber }> = {
  name: 'get',
  title: 'One recap summary whole',
  description:
    "One of this project's recap summaries whole, by its entry number (from search, timeline or the memory's index): its text, its place in the chain and the files it references.",
  input: { entry: z.number().int().min(1).describe('the entry number, as search and timeline show it (#12 is 12)') },
  async run(args, ask) {
    const shown = await ask('show', { seq: args.entry } as RequestFields<'show'>);
    return { text: shownSummary(shown, utc), structured: { entry: shown.entry, gist: shown.gist, gistBy: shown.gistBy } };
  },
};

const decisionLine = (d: DecisionEntry) =>
  `${d.n}. ${d.decision} — ${d.reason} (#${d.seq}${d.from !== undefined ? ` [${d.from}]` : ''}, ${utc(d.time)}${d.topic === undefined ? '' : ` [${d.topic}]`}${d.supersededBy !== undefined ? `, amended by #${d.supersededBy}` : ''})`;

const decisions: RecapTool<{ limit: z.ZodOptional<z.ZodNumber> }> = {
  name: 'decisions',
  title: "This project's decision log",
  description: "The decisions recorded in this project's recap summaries (decision — reason), newest first, each with the entry it is in. " + GET_HINT,
  input: { limit: z.number().int().min(1).max(10_000).optional().describe('at most this many decisions') },
  async run(args, ask) {
    const log = await ask('decisions', (args.limit !== undefined ? { limit: args.limit } : {}) as RequestFields<'decisions'>);
    const older = log.index === undefined || log.index.length === 0 ? '' : `\n\nOlder decisions, one line each:\n${log.index.join('\n')}`;
    const text = log.total === 0 ? 'No decision is recorded yet.' : `${log.total} decisions, newest first:\n${log.decisions.map(decisionLine).join('\n')}${older}\n\n${GET_HINT}`;
    return { text, structured: { ...log } };
  },
};

/** The four tools, as the server lists them. Their names are the ones the gate lets through (src/events/recapTools.ts). */
export const RECAP_TOOLS = [search, timeline, get, decisions] as const;
