// Claude Code's hooks, mapped onto recap's ops: a prompt is recorded, a question and its
// answer are recorded, every tool call is checked, a new session is handed the job's
// memory. Anything else gets a harmless answer (allow, nothing recorded) and a warning.
import type { Logger } from 'pino';
import { z } from 'zod';
import { jobIdFor, projectRoot } from '../common/jobs.js';
import { CommandRefused } from '../events/commands.js';
import type { ConfigService } from './configService.js';
import type { HookOps } from './handler.js';
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

export async function answerClaudeHook(payload: unknown, ops: HookOps, config: ConfigService, log: Logger): Promise<HookAnswer> {
  const event = common.shape.hook_event_name.safeParse((payload as { hook_event_name?: unknown } | null)?.hook_event_name);
  const name = event.success ? event.data : undefined;
  if (name === undefined || !Object.hasOwn(payloads, name)) {
    log.warn({ event: name }, 'ignoring a Claude Code hook event recap does not handle');
    return NOTHING;
  }
  const parsed = payloads[name as keyof typeof payloads].safeParse(payload);
  if (!parsed.success) {
    log.warn({ event: name, problems: describeIssues(parsed.error) }, 'ignoring a Claude Code hook payload of an unexpected shape');
    return NOTHING;
  }
  const where = target(parsed.data, config);
  const seen = await observe(parsed.data, where, ops);
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

type Target = { job: string; project: string };

const transcripts = new TranscriptReader();

/** The transcript's news: the model's usage is recorded, the context use is handed on. */
async function observe(payload: z.infer<typeof common>, where: Target, ops: HookOps): Promise<{ contextTokens?: number }> {
  const path = payload.transcript_path;
  if (path === undefined || !path.endsWith('.jsonl')) return {};
  const news = await transcripts.read(path);
  await ops.usage(where.job, payload.session_id ?? 'unknown', news.usage, where.project);
  return news.contextTokens !== undefined ? { contextTokens: news.contextTokens } : {};
}

/** Each working folder's project and the project's job: found once, not on every call. */
const folders = new Map<string, Target>();

/** The job of the payload's folder, or of its session with JOB_SCOPE=session. */
function target(payload: z.infer<typeof common>, config: ConfigService): Target {
  let folder = folders.get(payload.cwd);
  if (folder === undefined) {
    const project = projectRoot(payload.cwd);
    folder = { job: jobIdFor(project), project };
    if (folders.size > 10_000) folders.clear();
    folders.set(payload.cwd, folder);
  }
  const scope = config.forProject(folder.project).config.JOB_SCOPE;
  if (scope === 'session' && payload.session_id) return { job: `session-${payload.session_id.replace(/[^A-Za-z0-9._-]/g, '_')}`, project: folder.project };
  return folder;
}

/** A subagent by its id (the transcript's agentId), so its usage and its calls meet in one row. */
function agentOf(payload: z.infer<typeof common>): { session?: string; agent: string } {
  return { ...(payload.session_id !== undefined ? { session: payload.session_id } : {}), agent: payload.agent_id ?? payload.agent_type ?? 'main' };
}

function additionalContext(hookEventName: string, context: string): HookAnswer {
  return { stdout: JSON.stringify({ hookSpecificOutput: { hookEventName, additionalContext: context } }), exitCode: 0 };
}

async function promptSubmitted(payload: Payload<'UserPromptSubmit'>, where: Target, ops: HookOps, seen: { contextTokens?: number }): Promise<HookAnswer> {
  const result = await ops.record({ ...where, kind: 'prompt', text: payload.prompt, ...agentOf(payload), ...seen });
  if (!result.gate?.tripped) return NOTHING;
  return additionalContext(
    'UserPromptSubmit',
    `recap: job ${where.job} needs a summary before any other tool can run ` +
      `(${result.gate.reason ?? 'threshold'}: ${result.gate.unsummarizedTokens} unsummarized tokens, threshold ${result.gate.threshold}). ` +
      `Run ${ops.recapCommand} context to see what to summarize and the command to submit it with.`,
  );
}

async function toolRequested(payload: Payload<'PreToolUse'>, where: Target, ops: HookOps, seen: { contextTokens?: number }): Promise<HookAnswer> {
  const answer = await ops.check({ ...where, tool: payload.tool_name, input: payload.tool_input, cwd: payload.cwd, ...agentOf(payload), ...seen });
  if (answer.allow) return NOTHING;
  const output = {
    hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: answer.reason },
  };
  return { stdout: JSON.stringify(output), exitCode: 0 };
}

async function toolUsed(payload: Payload<'PostToolUse'>, where: Target, ops: HookOps): Promise<HookAnswer> {
  if (payload.tool_name !== 'AskUserQuestion') return NOTHING;
  const qa = questionsAndAnswers(payload.tool_input, payload.tool_response);
  if (qa === '') return NOTHING;
  await ops.record({ ...where, kind: 'qa', text: qa, ...agentOf(payload) });
  return NOTHING;
}

async function sessionStarted(where: Target, ops: HookOps): Promise<HookAnswer> {
  const { text: memory, tripped, summaries } = await ops.context(where);
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
