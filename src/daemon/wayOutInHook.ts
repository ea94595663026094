// The way out, run by the hook instead of the agent's shell: for an agent whose shell
// cannot reach the daemon (Codex's default sandboxes, and Claude Code's when it is on,
// refuse Unix sockets) or cannot tell it the session (Gemini CLI's carries no session id),
// a whitelisted recap command is answered here, and the call itself is denied with the
// command's output as the reason, which the model reads as the tool's result.
import type { ToolCall } from '../events/toolCall.js';
import { readWayOut, type WayOut } from '../events/whitelist.js';
import type { HookOps } from './hookOps.js';
import type { Where } from './jobResolver.js';
import { ProtocolError, requestSchemas } from '../protocol/protocol.js';
import { shownHits, shownTimeline } from '../protocol/shownHits.js';
import { shownSummary } from '../protocol/shownSummary.js';
import { decisionLogText } from '../protocol/decisionLogText.js';
import { describeIssues } from '../common/zodIssues.js';

/**
 * How the answer begins. The agent shows it as a blocked call ("Command blocked by
 * PreToolUse hook: …"), so it says at once that nothing failed: recap ran the command
 * itself, and what follows is its output.
 */
const RAN = 'recap ran this command for you in its hook, so it did not run in your shell; this is how its output reaches you, not an error. Its output:';

/**
 * The output of the recap command the call is, or undefined when it is no whitelisted recap
 * command or `here` says the agent's shell runs it itself. `shellTool` is the asking agent's
 * name for its shell tool, for the texts that say what to run.
 */
export async function wayOutInHook(call: ToolCall, where: Where, ops: HookOps, shellTool: string, here: () => boolean = () => true): Promise<string | undefined> {
  if (call.kind !== 'shell' || call.command === undefined) return undefined;
  const way = readWayOut(call.command, ops.recapPaths);
  if (way === undefined || !here()) return undefined;
  const explicit = way.options.get('--job');
  const job = typeof explicit === 'string' ? explicit : where.job;
  const asJson = way.options.has('--json');
  // What the socket takes from recap's CLI, and nothing else: a job or a topic it would refuse
  // (control characters, a topic of two words or a `;`, which a later deny message would
  // name in the command it asks for) is refused here too.
  const topic = way.options.get('--topic');
  // The call's project, unless it named another job: a summary's files are paths in it, and its configuration applies.
  const project = typeof explicit !== 'string' && where.project !== undefined ? { project: where.project } : {};
  const request = {
    job,
    ...(typeof topic === 'string' ? { topic } : {}),
    ...(way.subcommand === 'submit' ? { text: way.summary ?? '' } : {}),
    ...(way.seq !== undefined ? { seq: way.seq } : {}),
  };
  const schema = way.subcommand === 'submit' ? requestSchemas.submit : way.subcommand === 'show' ? requestSchemas.show : requestSchemas.status;
  const valid = schema.safeParse(request);
  if (!valid.success) return `${RAN}\nrecap refused the request (${describeIssues(valid.error)}); nothing changed.`;
  if (way.subcommand === 'search' || way.subcommand === 'timeline') return `${RAN}\n${await found(ops, way, job, asJson)}`;
  switch (way.subcommand) {
    case 'submit': {
      if (way.summary === undefined) return `recap: give the summary in a quoted here-document (${ops.recapCommand} submit <<'EOF' ... EOF); here --file cannot be read.`;
      const answer = await ops.submit({ job, ...project, text: `${way.summary}\n`, ...(typeof topic === 'string' ? { topic } : {}) });
      if (asJson) return `${RAN}\n${JSON.stringify(answer)}`;
      if (answer.accepted) {
        return (
          `${RAN}\nSummary accepted: ${answer.entry.tokens} tokens, covering every interaction up to event #${answer.entry.coversThrough}. ` +
          'The gate is open: every tool works again. Do not submit this summary again; go on with the work.'
        );
      }
      return (
        `${RAN}\nSummary rejected: the gate stays closed and every other tool is still denied. ` +
        `Fix every problem below, then submit the whole corrected summary again with the same ${shellTool} command:\n` +
        answer.problems.map((p) => `- ${p}`).join('\n')
      );
    }
    case 'context': {
      const { text } = await ops.context({ job, ...project }, undefined, shellTool);
      return `${RAN}\n${asJson ? JSON.stringify({ text }) : text}`;
    }
    case 'status': {
      const status = await ops.status({ job });
      if (asJson) return `${RAN}\n${JSON.stringify(status)}`;
      const gate = status.tripped ? `TRIPPED (${status.reason ?? 'threshold'}): submit a summary; ${ops.recapCommand} context shows what to write` : 'open';
      return `${RAN}\njob ${status.job}: gate ${gate}\nunsummarized: ${status.unsummarizedTokens} of ${status.threshold} tokens\nsummaries: ${status.summaries}`;
    }
    case 'chain': {
      const { entries } = await ops.chain({ job });
      if (asJson) return `${RAN}\n${JSON.stringify({ entries })}`;
      return `${RAN}\n${entries.length === 0 ? 'no summaries yet' : entries.map((e) => `#${e.seq}, level ${e.level}, ${e.tokens} tokens:\n${e.text}`).join('\n\n')}`;
    }
    case 'show':
      return `${RAN}\n${await shown(ops, { job, seq: way.seq ?? 0, original: false }, asJson)}`;
    case 'decisions': {
      const log = await ops.decisions({ job });
      return `${RAN}\n${asJson ? JSON.stringify(log) : decisionLogText(log, (ms) => new Date(ms).toISOString().slice(0, 10))}`;
    }
    default:
      return undefined;
  }
}

/**
 * `search` and `timeline`'s output. A time (--since, --at) is read by the CLI in the user's
 * zone and forms, which the hook does not have: the agent is told to leave it out.
 */
async function found(ops: HookOps, way: WayOut, job: string, asJson: boolean): Promise<string> {
  const time = way.options.has('--since') ? '--since' : way.options.has('--at') ? '--at' : undefined;
  if (time !== undefined) return `recap: ${time} cannot be read here, where recap runs the command in its hook; run it again without ${time}.`;
  const number = (name: string) => (typeof way.options.get(name) === 'string' ? Number(way.options.get(name)) : undefined);
  const allJobs = way.options.has('--all-jobs');
  const topic = way.options.get('--topic');
  const fields =
    way.subcommand === 'search'
      ? { job, query: way.query ?? '', allJobs, ...(typeof topic === 'string' ? { topic } : {}), ...(number('--limit') !== undefined ? { limit: number('--limit') } : {}) }
      : {
          job,
          ...(way.seq !== undefined ? { seq: way.seq } : {}),
          ...(number('--before') !== undefined ? { before: number('--before') } : {}),
          ...(number('--after') !== undefined ? { after: number('--after') } : {}),
        };
  const iso = (ms: number) => new Date(ms).toISOString();
  try {
    if (way.subcommand === 'search') {
      const request = requestSchemas.search.safeParse(fields);
      if (!request.success) return `recap refused the request (${describeIssues(request.error)}); nothing changed.`;
      const answer = await ops.search(request.data);
      return asJson ? JSON.stringify(answer) : shownHits(answer, { query: request.data.query, allJobs, recap: ops.recapCommand }, iso);
    }
    const request = requestSchemas.timeline.safeParse(fields);
    if (!request.success) return `recap refused the request (${describeIssues(request.error)}); nothing changed.`;
    const answer = await ops.timeline(request.data);
    return asJson ? JSON.stringify(answer) : shownTimeline(answer, iso);
  } catch (error) {
    if (!(error instanceof ProtocolError)) throw error;
    return asJson ? JSON.stringify({ error: { code: error.code, message: error.message } }) : `recap: ${error.message}`;
  }
}

/** `show N`'s output, or the daemon's word on a number that is no summary of the job (recap show prints it so too). */
async function shown(ops: HookOps, request: { job: string; seq: number; original: boolean }, asJson: boolean): Promise<string> {
  try {
    const answer = await ops.show(request);
    return asJson ? JSON.stringify(answer) : shownSummary(answer, (ms) => new Date(ms).toISOString());
  } catch (error) {
    if (!(error instanceof ProtocolError)) throw error;
    return asJson ? JSON.stringify({ error: { code: error.code, message: error.message } }) : `recap: ${error.message}`;
  }
}
