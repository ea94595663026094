// A job's reads: its gate (`status`, and `statusline`, which also tells the session's model
// window), its memory (`context`), its summaries (`chain`) and one of them whole (`show`). Reads wait for the writes in
// flight and append nothing (CommandService.read). A job named that has no events is never
// silently a new one: these answer (scripts and agents ask about a job before its first
// event) and say so; the audit's reads fail (`known`).
import { cutToFit, fits, type ContextLimit } from '../../events/contextFit.js';
import { gateStatus } from '../../events/gate.js';
import { contextSeqs, demandText, fittedBudget, memoryBudget } from '../../events/gateMessages.js';
import { deriveGist, gistAuthor } from '../../events/gist.js';
import { REDACTED_GIST } from '../../events/entryText.js';
import { entriesInForce } from '../entriesInForce.js';
import { allEntries, jobEntry } from '../../events/jobState.js';
import { filesOwner, joinParts, memoryParts, type MemoryFiles } from '../../events/memory.js';
import { filesNow } from '../referenceFiles.js';
import { nearNames } from '../../common/nearNames.js';
import { ProtocolError, type RequestOf, type ResponseOf, type StatusAnswer } from '../../protocol/protocol.js';
import type { CommandService } from '../commandService.js';
import type { Memory } from '../hookOps.js';
import type { Where } from '../jobResolver.js';
import type { OpsOf } from './table.js';

/** How many sessions' model windows are kept. */
const MAX_WINDOWS = 10_000;
/** How many times a memory is rendered again to fit an agent's limit before it is cut. */
const CONTEXT_FIT_ATTEMPTS = 4;

export function jobOps(s: CommandService, windows: Windows): OpsOf<'status' | 'statusline' | 'context' | 'chain' | 'show'> {
  return {
    status: (r) => noted(s, r.job, () => status(s, r)),
    statusline: (r) => {
      const { contextWindow, ...rest } = r;
      if (r.session !== undefined && contextWindow !== undefined) windows.tell(r.session, contextWindow);
      return status(s, rest);
    },
    context: (r) => noted(s, r.job, () => context(s, r)),
    chain: (r) => noted(s, r.job, () => chain(s, r)),
    // A job named that has no events has no summary to show: an error naming the near jobs.
    show: (r) => known(s, r.job, () => show(s, r)),
  };
}

/** The windows of the sessions' models, as their status lines told them; the newest sessions kept. */
export class Windows {
  private readonly bySession = new Map<string, number>();

  tell(session: string, window: number): void {
    this.bySession.delete(session);
    if (this.bySession.size >= MAX_WINDOWS) this.bySession.delete(this.bySession.keys().next().value!);
    this.bySession.set(session, window);
  }

  /** The window of the session's model in tokens, if its status line told it. */
  of(session: string | undefined): number | undefined {
    return session === undefined ? undefined : this.bySession.get(session);
  }
}

export async function status(s: CommandService, r: RequestOf<'status'>): Promise<StatusAnswer> {
  const where = s.where(r);
  const { config } = await s.read(where);
  const files = s.deps.config;
  const problems = files.problems;
  const pending = where.project !== undefined ? files.pending(where.project) : undefined;
  const userPending = files.userPending();
  return {
    ...gateStatus(s.state(where.job), config, s.now()),
    ...(problems.length > 0 ? { configProblems: problems } : {}),
    ...(pending ? { configPending: pending } : {}),
    ...(userPending ? { userConfigPending: userPending } : {}),
  };
}

/**
 * The job's memory, or the demand for a summary; `shellTool` names the asking agent's shell
 * tool, `limit` the most text it hands its model whole: a memory over it is rendered again
 * with a smaller budget, and whatever still does not fit is cut, saying where the rest is.
 */
export async function context(s: CommandService, r: RequestOf<'context'>, where = s.where(r), shellTool?: string, limit?: ContextLimit): Promise<Memory> {
  const decide = await s.read(where);
  const { config, count } = decide;
  const recap = s.recapCommand;
  const files = await memoryFiles(s, where, decide);
  let budget = memoryBudget(config);
  for (let attempt = 1; ; attempt += 1) {
    const { parts, ...answer } = await s.withTexts(
      where.job,
      (state) => contextSeqs(state, config, count, recap, budget),
      (state, texts) => {
        const tripped = state.gate.tripped;
        const parts = tripped ? undefined : memoryParts(state, budget, count, texts, recap, files);
        const text = parts ? joinParts(parts) : demandText(state, config, texts, recap, shellTool, limit);
        // Every chain's: a memory of other machines' summaries alone is still handed over.
        return { text, parts, tripped, summaries: state.chain.length + state.imported.length };
      },
    );
    if (limit === undefined || fits(answer.text, limit)) return answer;
    if (parts === undefined || attempt === CONTEXT_FIT_ATTEMPTS) return { ...answer, text: cutToFit(answer.text, limit, `${recap} context prints it whole`) };
    budget = fittedBudget(budget, parts, limit);
  }
}

/**
 * The newest summary's files as they are now, read as a tool call's read would be, in the
 * project they were named in (none on a tripped gate).
 */
async function memoryFiles(s: CommandService, where: Where, decide: Awaited<ReturnType<CommandService['read']>>): Promise<MemoryFiles | undefined> {
  const state = s.state(where.job);
  const owner = state.gate.tripped || decide.config.REF_READ_BUDGET === 0 ? undefined : filesOwner(state);
  if (owner?.refs === undefined) return undefined;
  return { seq: owner.seq, files: await filesNow(owner.refs, owner.filesRoot ?? where.project, decide, decide.config.REF_READ_BUDGET) };
}

/** Every accepted summary of the job, other machines' among them, oldest first by time, whole: read from the log. */
export async function chain(s: CommandService, r: RequestOf<'chain'>): Promise<ResponseOf<'chain'>> {
  const where: Where = s.where(r);
  await s.read(where);
  return { entries: await chainEntries(s, where.job) };
}

/** The job's accepted summaries as the log holds them, oldest first; with `last`, the newest `last` only. */
export async function chainEntries(s: CommandService, job: string, last?: number): Promise<ResponseOf<'chain'>['entries']> {
  const entries = allEntries(s.state(job));
  return entriesInForce(s.deps.store, last === undefined ? entries : entries.slice(Math.max(entries.length - last, 0)));
}

/**
 * Summary #`seq` of the job whole, as the log holds it, with its gist (derived for a summary
 * older than gists). A number that is no summary of this job is refused with the nearest that are.
 */
export async function show(s: CommandService, r: RequestOf<'show'>): Promise<ResponseOf<'show'>> {
  const where: Where = s.where(r);
  await s.read(where);
  const state = s.state(where.job);
  const entry = jobEntry(state, r.seq);
  if (entry === undefined)
    throw new ProtocolError(
      'not_summary',
      notSummary(
        where.job,
        r.seq,
        allEntries(state)
          .map((e) => e.seq)
          .sort((a, b) => a - b),
      ),
    );
  const [shown] = await entriesInForce(s.deps.store, [entry], r.original);
  if (shown === undefined) throw new Error(`summary #${r.seq} of job ${where.job} is not in the event log`);
  const { amendment, redaction, ...data } = shown;
  // The original's own gist when it is asked for, else the one in force (the projection's).
  const gist = r.original && amendment !== undefined ? (data.gist ?? gistOf(data)) : entry.gist;
  return {
    entry: data,
    gist,
    gistBy: gistAuthor(data),
    ...(r.original ? { original: true as const } : {}),
    ...(amendment ? { amendment } : {}),
    ...(redaction ? { redaction } : {}),
  };
}

/** The gist of an original text that has none of its own: recap's, or none when its text is gone. */
const gistOf = (data: { text: string; redacted?: true }) => (data.redacted ? REDACTED_GIST : deriveGist(data.text));

/** Why `seq` cannot be shown, with the job's summaries just before and after it. */
export function notSummary(job: string, seq: number, seqs: number[]): string {
  if (seqs.length === 0) return `#${seq} is not a summary of job ${job}: the job has no summaries yet`;
  const near = [seqs.findLast((n) => n < seq), seqs.find((n) => n > seq)].flatMap((n) => (n === undefined ? [] : [`#${n}`]));
  return `#${seq} is not a summary of job ${job}; recap chain lists them (the nearest: ${near.join(', ')})`;
}

/** Runs `read` when `job` is not given or has events; else fails, saying so. */
export async function known<T>(s: CommandService, job: string | undefined, read: () => Promise<T>): Promise<T> {
  // Its events may be on their way to the log still.
  if (job !== undefined) await s.deps.store.flushed();
  const unknown = unknownJob(s, job);
  if (unknown !== undefined) throw new ProtocolError('unknown_job', unknown);
  return read();
}

/** `read`'s answer, with a notice when `job` has no events. */
export async function noted<T extends object>(s: CommandService, job: string | undefined, read: () => Promise<T>): Promise<T & { notice?: string }> {
  const answer = await read();
  const notice = unknownJob(s, job);
  return notice === undefined ? answer : { ...answer, notice };
}

/** What to say of a job named that has no events (the jobs of near names), if it has none. */
function unknownJob(s: CommandService, job: string | undefined): string | undefined {
  const jobs = s.deps.projection().jobs;
  if (job === undefined || jobs.has(job)) return undefined;
  const near = nearNames(job, jobs.keys());
  const hint = near.length > 0 ? `jobs with near names: ${near.join(', ')}` : jobs.size > 0 ? 'recap jobs lists every job' : 'no job has any event yet';
  return `job ${JSON.stringify(job)} has no events; ${hint}`;
}
