// Claude Code's hooks, mapped onto recap's ops: a prompt is recorded, a question and its
// answer are recorded, every tool call is checked, a new session is handed the job's
// memory. A tool call of an unexpected shape is judged as an unknown tool (denied while the
// gate is tripped); any other event or shape gets a harmless answer and a warning.
import type { Logger } from 'pino';
import { z } from 'zod';
import { CommandRefused } from '../events/commands.js';
import type { HookOps } from './handler.js';
import type { Where } from './jobResolver.js';
import { describeIssues } from './protocol.js';
import { TranscriptReader } from './transcript.js';

/** What the hook client prints and the exit code it ends with. */
export type HookAnswer = { stdout: string; exitCode: number };

const NOTHING: HookAnswer = { stdout: '', exitCode: 0 };
const text = z.string().max(256);

const common = z.object({
  hook_event_name: z.string().max(64),
  cwd: z.string().startsWith('/').max(4096),
  transcript_path: z.string().max(4096).optional(),
  session_id: text.optional(),
  agent_id: text.optional(),
  agent_type: text.optional(),
});
const tool = common.extend({ tool_name: z.string().min(1).max(256), tool_input: z.unknown() });
const payloads = {
  UserPromptSubmit: common.extend({ prompt: z.string() }),
  PreToolUse: tool,
  PostToolUse: tool.extend({ tool_response: z.unknown() }),
  SessionStart: common.extend({ source: text.optional() }),
};
type Payload<K extends keyof typeof payloads> = z.infer<(typeof payloads)[K]>;

export async function answerClaudeHook(payload: unknown, ops: HookOps, log: Logger): Promise<HookAnswer> {
  const event = common.shape.hook_event_name.safeParse((payload as { hook_event_name?: unknown } | null)?.hook_event_name);
  const name = event.success ? event.data : undefined;
  if (name === undefined || !Object.hasOwn(payloads, name)) {
    log.warn({ event: name }, 'ignoring a Claude Code hook event recap does not handle');
    return NOTHING;
  }
  const parsed = payloads[name as keyof typeof payloads].safeParse(payload);
  if (!parsed.success) {
    const problems = describeIssues(parsed.error).slice(0, 500);
    // Silence is an allow: a tool call recap cannot read is judged as an unknown tool.
    if (name === 'PreToolUse') {
      log.warn({ event: name, problems }, 'judging a Claude Code tool call of an unexpected shape as an unknown tool');
      return unreadableToolCall(payload as Record<string, unknown>, problems, ops);
    }
    log.warn({ event: name, problems }, 'ignoring a Claude Code hook payload of an unexpected shape');
    return NOTHING;
  }
  const where = ops.where({ session: parsed.data.session_id, cwd: parsed.data.cwd });
  const seen = await observe(parsed.data, where, ops, log);
  try {
    switch (name as keyof typeof payloads) {
      case 'UserPromptSubmit':
        return await promptSubmitted(parsed.data as Payload<'UserPromptSubmit'>, where, ops, seen);
      case 'PreToolUse':
        return await toolRequested(parsed.data as Payload<'PreToolUse'>, where, ops, seen);
      case 'PostToolUse':
        return await toolUsed(parsed.data as Payload<'PostToolUse'>, where, ops);
      case 'SessionStart':
        return await sessionStarted(where, ops);
    }
  } catch (error) {
    if (!(error instanceof CommandRefused)) throw error;
    return NOTHING;
  }
}

const transcripts = new TranscriptReader();

/**
 * The transcript's news: the model's usage is recorded, the context use is handed on. It
 * is secondary to the hook's answer: whatever goes wrong here, the answer is the same.
 */
async function observe(payload: z.infer<typeof common>, where: Where, ops: HookOps, log: Logger): Promise<{ contextTokens?: number }> {
  const path = payload.transcript_path;
  if (path === undefined || !path.endsWith('.jsonl')) return {};
  try {
    const news = await transcripts.read(path);
    await ops.usage(where, payload.session_id ?? 'unknown', news.usage);
    return news.contextTokens !== undefined ? { contextTokens: news.contextTokens } : {};
  } catch (error) {
    log.warn({ err: error, transcript: path }, 'the transcript could not be used; the call is judged without it');
    return {};
  }
}

/** The name an unreadable tool call is checked under: no whitelist or rule knows it. */
const UNREADABLE_TOOL = '(unreadable tool call)';

/**
 * A PreToolUse payload recap cannot read: its job (the session's, else the folder's) judges
 * it as an unknown tool, so a tripped gate denies it; with no job to ask, it is denied.
 */
async function unreadableToolCall(raw: Record<string, unknown>, problems: string, ops: HookOps): Promise<HookAnswer> {
  const session = typeof raw.session_id === 'string' && raw.session_id.length <= 256 ? raw.session_id : undefined;
  const cwd = typeof raw.cwd === 'string' && raw.cwd.startsWith('/') && raw.cwd.length <= 4096 ? raw.cwd : undefined;
  let where: Where;
  try {
    where = ops.where({ session, cwd });
  } catch {
    return deny(
      `recap: this tool call's hook input has an unexpected shape (${problems}) and names no folder or known session, ` +
        "so recap cannot tell which job it belongs to and denies it. Tell the user: recap's hook may not match this Claude Code version (recap doctor).",
    );
  }
  const answer = await ops.check({ tool: UNREADABLE_TOOL, ...(session !== undefined ? { session } : {}), ...(cwd !== undefined ? { cwd } : {}) }, where);
  if (answer.allow) return NOTHING;
  return deny(`recap could not read this tool call (${problems}); it is judged as an unknown tool.\n${answer.reason ?? ''}`);
}

function deny(reason: string): HookAnswer {
  const output = { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason } };
  return { stdout: JSON.stringify(output), exitCode: 0 };
}

/** A subagent by its id (the transcript's agentId), so its usage and its calls meet in one row. */
function agentOf(payload: z.infer<typeof common>): { session?: string; agent: string } {
  return { ...(payload.session_id !== undefined ? { session: payload.session_id } : {}), agent: payload.agent_id ?? payload.agent_type ?? 'main' };
}

function additionalContext(hookEventName: string, context: string): HookAnswer {
  return { stdout: JSON.stringify({ hookSpecificOutput: { hookEventName, additionalContext: context } }), exitCode: 0 };
}

async function promptSubmitted(payload: Payload<'UserPromptSubmit'>, where: Where, ops: HookOps, seen: { contextTokens?: number }): Promise<HookAnswer> {
  const result = await ops.record({ kind: 'prompt', text: payload.prompt, ...agentOf(payload), ...seen }, where);
  if (!result.gate?.tripped) return NOTHING;
  return additionalContext(
    'UserPromptSubmit',
    `recap: job ${where.job} needs a summary before any other tool can run ` +
      `(${result.gate.reason ?? 'threshold'}: ${result.gate.unsummarizedTokens} unsummarized tokens, threshold ${result.gate.threshold}). ` +
      `Run ${ops.recapCommand} context to see what to summarize and the command to submit it with.`,
  );
}

async function toolRequested(payload: Payload<'PreToolUse'>, where: Where, ops: HookOps, seen: { contextTokens?: number }): Promise<HookAnswer> {
  const answer = await ops.check({ tool: payload.tool_name, input: payload.tool_input, cwd: payload.cwd, ...agentOf(payload), ...seen }, where);
  return answer.allow ? NOTHING : deny(answer.reason ?? 'recap: denied');
}

async function toolUsed(payload: Payload<'PostToolUse'>, where: Where, ops: HookOps): Promise<HookAnswer> {
  if (payload.tool_name !== 'AskUserQuestion') return NOTHING;
  const qa = questionsAndAnswers(payload.tool_input, payload.tool_response);
  if (qa === '') return NOTHING;
  await ops.record({ kind: 'qa', text: qa, ...agentOf(payload) }, where);
  return NOTHING;
}

async function sessionStarted(where: Where, ops: HookOps): Promise<HookAnswer> {
  const { text: memory, tripped, summaries } = await ops.context({}, where);
  if (!tripped && summaries === 0) return NOTHING;
  return additionalContext('SessionStart', memory);
}

const asked = z.object({ questions: z.array(z.object({ question: z.string() }).loose()) }).loose();
const answered = z.object({ answers: z.record(z.string(), z.unknown()).optional() }).loose();

/** "Q: ... / A: ..." for every question, with the answer the user gave. */
export function questionsAndAnswers(input: unknown, response: unknown): string {
  const questions = asked.safeParse(input);
  if (!questions.success) return '';
  const answers = answered.safeParse(response);
  const given = answers.success ? (answers.data.answers ?? {}) : {};
  return questions.data.questions
    .map(({ question }) => {
      const answer = given[question];
      return `Q: ${question}\nA: ${answer === undefined ? '(no answer)' : typeof answer === 'string' ? answer : JSON.stringify(answer)}`;
    })
    .join('\n\n');
}
