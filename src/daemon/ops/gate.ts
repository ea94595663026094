// The gate's commands: record an interaction, check a tool call, submit a summary, the
// user's trip, pause and resume, and what hooks record besides (the model's usage, a notice
// shown, recap switched off). Each is one transaction (CommandService.transact).
import type { Caller } from '../../events/caller.js';
import type { CheckTool, UsageEntry } from '../../events/commands.js';
import { gateStatus, type CheckAnswer } from '../../events/gate.js';
import { denySeqs } from '../../events/gateMessages.js';
import { owedConfigNotice, owedNotice, type Notice } from '../../events/notices.js';
import { submitSeqs } from '../../events/summaries.js';
import { byOf } from '../../events/switches.js';
import { AGENT_FACTS } from '../../agents/known.js';
import type { Where } from '../jobResolver.js';
import { lookUpReferences } from '../referenceFiles.js';
import { findSecrets } from '../secretScanner.js';
import type { RequestOf, ResponseOf } from '../../protocol/protocol.js';
import type { CommandService, Done } from '../commandService.js';
import type { Prepared } from '../prepare.js';
import type { PromptSent, Recorded, ToolCheck } from '../hookOps.js';
import { defined, type OpsOf } from './table.js';

export function gateOps(s: CommandService): OpsOf<'record' | 'check' | 'submit' | 'trip' | 'pause' | 'resume'> {
  return {
    record: (r) => record(s, r),
    check: (r) => checkTool(s, r),
    submit: (r) => submit(s, r),
    trip: (r, _, by) => trip(s, r, by),
    pause: (r, _, by) =>
      s.transact(s.where(r), (job, now) => ({ type: 'PauseGate', job, until: r.until, ...byOf({ by }), now }), { render: (a, done) => ({ ...a, gate: gateOf(done) }) }),
    resume: (r, _, by) => s.transact(s.where(r), (job, now) => ({ type: 'ResumeGate', job, ...byOf({ by }), now }), { render: (a, done) => ({ ...a, gate: gateOf(done) }) }),
  };
}

/** The job's gate after a user's switch, as `recap status` shows it. */
const gateOf = (done: Done) => gateStatus(done.state, done.config, done.now);

/**
 * Records an interaction. `prompt`: the id recap-hook gave a prompt (and, for one taken
 * from its spool, when it came): a prompt of an id already recorded is not recorded again,
 * and one from the spool is recorded at the time it came (never later than now).
 */
export async function record(s: CommandService, r: RequestOf<'record'>, where = s.where(r), prompt?: PromptSent): Promise<Recorded> {
  const ctx = await s.prepare(where.project);
  const secrets = await findSecrets(r.text);
  // Checked after the last await: nothing else records between this look and the append.
  if (prompt !== undefined && s.deps.projection().promptRecorded(prompt.id)) {
    return { seq: undefined, tokens: 0, gate: gateStatus(s.state(where.job), ctx.decide.config), already: true };
  }
  const fields = defined({ kind: r.kind, text: r.text, session: r.session, agent: r.agent, contextTokens: r.contextTokens, contextWindow: r.contextWindow, promptId: prompt?.id });
  return s.transact(
    where,
    (job, now) => ({ type: 'RecordInteraction', ...fields, ...(secrets.length > 0 ? { secrets } : {}), job, now: prompt?.at !== undefined ? Math.min(prompt.at, now) : now }),
    {
      prepared: ctx,
      render: (answer, done) => ({
        seq: done.stored.find((e) => e.type === 'InteractionRecorded')?.seq,
        tokens: answer.tokens,
        gate: gateStatus(done.state, done.config),
        ...(answer.uncounted !== undefined ? { uncounted: answer.uncounted } : {}),
      }),
    },
  );
}

/** `recap check` and the HTTP endpoint: a tool call by the agent's own name for the tool. */
function checkTool(s: CommandService, r: RequestOf<'check'>): CheckAnswer | Promise<CheckAnswer> {
  const facts = AGENT_FACTS[r.from];
  // Field by field, not `{ ...rest, call }`: on Node 20's V8 every object made by a spread
  // and then given more properties survives two scavenges and is promoted, so a check left
  // ~0.6 kB in the old generation, for a full mark-compact to collect. The type makes a
  // field added to the request a compile error here rather than one silently dropped.
  const call: { [K in keyof Omit<ToolCheck, 'call' | 'shellTool'>]-?: ToolCheck[K] | undefined } & Pick<ToolCheck, 'call' | 'shellTool'> = {
    job: r.job,
    session: r.session,
    agent: r.agent,
    contextTokens: r.contextTokens,
    contextWindow: r.contextWindow,
    cwd: r.cwd,
    project: r.project,
    call: facts.toolCall(r.tool, r.input),
    shellTool: facts.shellTool,
  };
  return check(s, call);
}

export function check(s: CommandService, r: ToolCheck, where = s.where(r)): CheckAnswer | Promise<CheckAnswer> {
  // Every tool call asks: once the token counter is loaded, its context is made at once, and
  // the check is decided in this turn (no async function around it, no await).
  const ctx = s.prepared.preparedNow(where.project, r.shellTool);
  if (ctx === undefined) return s.prepared.prepareCheck(where.project, r.shellTool).then((made) => checkWith(s, r, where, made));
  return checkWith(s, r, where, ctx);
}

function checkWith(s: CommandService, r: ToolCheck, where: Where, ctx: Prepared): CheckAnswer | Promise<CheckAnswer> {
  // One literal, not a rest, `defined()` and a spread (three objects a check): the decider
  // reads an absent field and an undefined one alike, and the events it makes hold neither.
  const command: CheckTool = {
    type: 'CheckTool',
    job: where.job,
    call: r.call,
    session: r.session,
    agent: r.agent,
    cwd: r.cwd,
    contextTokens: r.contextTokens,
    contextWindow: r.contextWindow,
    now: s.now(),
  };
  // On an open gate nothing is read, and the answer is given as it is when nothing is stored:
  // the common case costs no extra turn and no promise.
  if (s.state(where.job).gate.tripped) return s.transact(where, command, { prepared: ctx, texts: denySeqs });
  return s.decideNow(where, command, ctx);
}

/**
 * The newest summaries (or those a rollup rolls up) are what the new one is checked against;
 * the files its `## Files` section names are looked up on the disk first.
 */
export async function submit(s: CommandService, r: RequestOf<'submit'>): Promise<ResponseOf<'submit'>> {
  const where = s.where(r);
  const prepared = await s.prepare(where.project);
  const { config } = prepared.decide;
  const files = await lookUpReferences(r.text, config.REQUIRED_SECTIONS, where.project, prepared.decide);
  const secrets = await findSecrets(r.text);
  return s.transact(
    where,
    (job, now) => ({ type: 'SubmitSummary', job, text: r.text, ...defined({ topic: r.topic, root: where.project }), files, ...(secrets.length > 0 ? { secrets } : {}), now }),
    {
      texts: submitSeqs,
      prepared,
      // The entry's number, which `recap show` and `recap amend` take, is the accepted summary's event's.
      render: (answer, done) => {
        const seq = answer.accepted ? done.stored.find((e) => e.type === 'SummaryAccepted')?.seq : undefined;
        return seq !== undefined ? { ...answer, seq } : answer;
      },
    },
  );
}

function trip(s: CommandService, r: RequestOf<'trip'>, by?: Caller): Promise<ResponseOf<'trip'>> {
  const where = s.where(r);
  if (r.cancel) {
    return s.transact(where, (job, now) => ({ type: 'CancelTrip', job, ...byOf({ by }), now }), {
      render: (answer, done) => ({ tripped: false, already: !answer.cancelled, gate: gateOf(done) }),
    });
  }
  return s.transact(where, (job, now) => ({ type: 'TripGate', job, ...defined({ note: r.note, by }), now }), { render: (answer, done) => ({ ...answer, gate: gateOf(done) }) });
}

/** The model's token use read from a transcript, each message once. */
export async function usage(s: CommandService, where: Where, session: string, entries: UsageEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await s.transact(where, (job, now) => ({ type: 'RecordUsage', job, session, entries, now }));
}

/** The notice the user is owed about the job's gate (notices.ts), if any. */
export function owed(s: CommandService, where: Where): Notice | undefined {
  const state = s.state(where.job);
  return owedNotice(state) ?? owedConfigNotice(state, s.deps.config.heldFiles(where.project));
}

/** The user was shown the notice in the agent's UI. */
export async function noticeShown(s: CommandService, where: Where, notice: Notice, who: { session?: string; agent: string }): Promise<void> {
  const { kind, seq: about, text } = notice;
  await s.transact(where, (job, now) => ({ type: 'RecordNoticeShown', job, about, kind, text, ...who, now }), { alone: true });
}

/** A hook of a session recap is switched off for (RECAP_DISABLE=1); whether it is the session's first. */
export async function switchedOff(s: CommandService, where: Where, session: string | undefined, agent: string): Promise<boolean> {
  const command = (job: string, now: number) => ({ type: 'RecordRecapOff' as const, job, ...(session !== undefined ? { session } : {}), agent, now });
  return (await s.transact(where, command, { alone: true })).first;
}
