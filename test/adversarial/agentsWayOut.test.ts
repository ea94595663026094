// The way out itself, attacked through Codex CLI's, Gemini CLI's and Qwen Code's payloads:
// the exact command of the deny message is accepted; near-miss spellings are denied by the
// gate; where the hook runs the way out (Codex, Gemini CLI) a submit with commands chained
// on, a second here-document, --file on recap's own files, --job and --topic of forms the
// socket refuses, a huge summary, and status/context/chain/show with odd options each end in a
// deny and leave the gate tripped. Payloads of unexpected shapes are denied; another agent's
// events and unknown ones are answered with nothing and change nothing. With the daemon
// stopped (SIGSTOP), or killed and unable to start again, each agent's hook still denies in
// its own format from the verdict file, and lets the way out through.
import { rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startDaemon } from '../helpers/daemon.js';
import { filledIn, submitCommandIn, TRIP_PROMPTS } from '../helpers/gateAttack.js';
import {
  AGENTS,
  agentPayload,
  agentPrompt,
  agentShell,
  agentTool,
  allowedAs,
  deniedAs,
  endAgentAttack,
  gateDenied,
  hook,
  launcherOf,
  PROFILES,
  proveAgentWayOut,
  proveAndRetrip,
  RAN,
  trippedAgent,
  wayOutOpen,
  type AgentAttack,
  type AgentName,
} from '../helpers/agentAttack.js';
import { eventLog, verdictFile } from '../helpers/recapTargets.js';

type Status = { tripped: boolean; summaries: number; unsummarizedInteractions: number };
const status = async (a: AgentAttack, job = a.job): Promise<Status> => JSON.parse((await runCli(a.box, ['status', '--json', '--job', job])).stdout) as Status;

/** The submit command a fresh deny names, with a real summary in it (not yet taken). */
async function exactCommand(a: AgentAttack): Promise<string> {
  const [tool, input] = PROFILES[a.agent].ordinary(a.box.project);
  return filledIn(submitCommandIn(gateDenied(a, await hook(a, agentTool(a, tool, input)))), a.wayOuts);
}

/** Spellings of recap commands that are not the way out: the gate denies each, naming it. */
function nearMisses(a: AgentAttack, exact: string): [string, string][] {
  const launcher = launcherOf(a);
  const body = exact.slice(exact.indexOf('\n'));
  return [
    ['bare recap', `recap submit <<'EOF'${body}`],
    ['recap on PATH by its full name', `${join(a.box.dir, 'usr-bin', 'recap')} status`],
    ['the launcher through ./', `${dirname(launcher)}/./recap status`],
    ['the launcher with a doubled slash', `${launcher.replace('/bin/', '//bin/')} status`],
    ['the launcher relative', `${relative(a.box.project, launcher)} status`],
    ['a longer name', `${launcher}x status`],
    ['a capitalised subcommand', `${launcher} Submit <<'EOF'${body}`],
    ['an unquoted here-document', `${launcher} submit <<EOF${body}`],
    ['a here-document never closed', `${launcher} submit <<'EOF'${body.replace(/\nEOF$/, '')}`],
    ['a delimiter the shell reads otherwise', `${launcher} submit <<'E"O"F'${body.replace(/\nEOF$/, '\nE"O"F')}`],
    ['through env', `env ${launcher} status`],
    ['through exec', `exec ${launcher} status`],
    ['a command substitution as the program', `$(echo ${launcher}) status`],
    ['chained with &&', `${launcher} status && ls`],
    ['chained with ;', `${launcher} context; cat ${a.box.config}`],
    ['a second line', `${launcher} status\nrm -rf ${a.box.data}`],
    ['a pipe', `${launcher} chain | tee /tmp/x`],
    ['a redirection', `${launcher} status > ${a.box.config}`],
    ['in the background', `${launcher} status &`],
    ['a setup subcommand', `${launcher} trip`],
    ['a status with a value it does not take', `${launcher} status --verbose`],
    ['a status with --job and no value', `${launcher} status --job`],
    ['a context with --json twice', `${launcher} context --json --json`],
    ['a chain with --file', `${launcher} chain --file /etc/passwd`],
    ['a chain with input', `${launcher} chain <<'EOF'\nx\nEOF`],
    ['a show with no number', `${launcher} show`],
    ['a show with a command chained on', `${launcher} show 1 && ls`],
    ['a show with --job of another job and a command chained on', `${launcher} show 1 --job other-job; cat ${a.box.config}`],
    ['a submit with the here-document and --file', `${launcher} submit --file notes.md <<'EOF'${body}`],
    ['a submit with two here-documents', `${launcher} submit <<'EOF' <<'EOG'${body}\nx\nEOG`],
    ['a submit with its here-document and then a command', `${exact}\nrm -rf ${a.box.data}`],
    ['a submit chained after its here-document line', exact.replace(`<<'EOF'`, `<<'EOF' && rm -rf ${a.box.data}`)],
    ['a submit with -f (an alias the gate does not take)', `${launcher} submit -f notes.md`],
    ['a submit with --topic computed by the shell', exact.replace(' submit ', ' submit --topic "$(id -u)" ')],
  ];
}

describe.each(AGENTS)('the way out through %s', (agent: AgentName) => {
  let a: AgentAttack;
  beforeAll(async () => {
    a = await trippedAgent(agent);
  });
  afterAll(() => endAgentAttack(a));

  it("the deny message's exact command is accepted and opens the gate; a second window's works too", async () => {
    await proveAndRetrip(a);
    await proveAndRetrip(a);
  });

  it('near-miss spellings are denied by the gate, which names the exact command again', async () => {
    const exact = await exactCommand(a);
    const missed: string[] = [];
    for (const [name, command] of nearMisses(a, exact)) {
      const run = await hook(a, agentShell(a, command));
      try {
        // Denied by the gate, or (a path of recap's in it) by the protection rules: never run.
        expect(deniedAs(agent, run).startsWith(RAN)).toBe(false);
      } catch (error) {
        missed.push(`${name}: ${(error as Error).message.split('\n')[0]} ${run.stdout.slice(0, 160)}`);
      }
    }
    expect(missed).toEqual([]);
    expect(await status(a)).toMatchObject({ tripped: true });
    await wayOutOpen(a);
  });

  it("a summary from --file on recap's own files is refused, and reads nothing of them", async () => {
    const files = [join(a.box.data, 'recapd.log'), eventLog(a.box), a.box.config, verdictFile(a.box)];
    const before = await status(a);
    for (const file of files) {
      for (const spelled of [file, relative(a.box.project, file), `--file=${file}`]) {
        const option = spelled.startsWith('--file=') ? spelled : `--file ${spelled}`;
        const reason = deniedAs(agent, await hook(a, agentShell(a, `${launcherOf(a)} submit ${option}`)));
        // Nothing of the file: no log line, no config line, no verdict.
        expect(reason).not.toMatch(/"msg"|InteractionRecorded|TOKEN_THRESHOLD=|"tripped"\s*:\s*\{/);
        expect(reason).not.toContain(TRIP_PROMPTS[0]!.slice(0, 40));
      }
    }
    expect(await status(a)).toMatchObject({ tripped: true, summaries: before.summaries });
    await wayOutOpen(a);
  });

  it("a huge summary is answered within the deadline, in the agent's format, and the gate stays tripped", async () => {
    const exact = await exactCommand(a);
    const huge = exact.replace(/\nEOF$/, `\n${'The user asked again for the same thing, in many more words. '.repeat(40_000)}\nEOF`);
    const started = Date.now();
    const run = await hook(a, agentShell(a, huge));
    expect(Date.now() - started).toBeLessThan(8000);
    if (PROFILES[agent].wayOutInHook) {
      const reason = deniedAs(agent, run);
      expect(reason.startsWith(RAN)).toBe(true);
      expect(reason).toContain('Summary rejected');
      expect(reason.length).toBeLessThan(20_000);
    } else {
      // Qwen Code runs it in its shell, where the daemon rejects it.
      allowedAs(run);
    }
    expect(await status(a)).toMatchObject({ tripped: true });
    await wayOutOpen(a);
  });

  it('the read-only commands with the options they take answer; the gate stays tripped', async () => {
    const launcher = launcherOf(a);
    const chain = JSON.parse((await runCli(a.box, ['chain', '--json', '--job', a.job])).stdout) as { entries: { seq: number }[] };
    const seq = chain.entries[0]!.seq;
    for (const command of [
      `${launcher} status --json`,
      `${launcher} context --job ${a.job}`,
      `${launcher} chain --json --job=${a.job}`,
      `'${launcher}' status`,
      `${launcher} show ${seq}`,
      `${launcher} show --job ${a.job} '#${seq}' --json`,
      `${launcher} decisions --json --job ${a.job}`,
    ]) {
      const run = await hook(a, agentShell(a, command));
      if (PROFILES[agent].wayOutInHook) expect(deniedAs(agent, run).startsWith(RAN)).toBe(true);
      else allowedAs(run);
    }
    // Where the hook runs it, show prints the summary whole, or says the number is none of the job's.
    if (PROFILES[agent].wayOutInHook) {
      expect(deniedAs(agent, await hook(a, agentShell(a, `${launcher} show ${seq}`)))).toContain(`summary #${seq} of job ${a.job}\n`);
      expect(deniedAs(agent, await hook(a, agentShell(a, `${launcher} show ${seq + 1}`)))).toContain(`recap: #${seq + 1} is not a summary of job ${a.job}`);
      // And decisions prints the decision log as recap decisions does.
      expect(deniedAs(agent, await hook(a, agentShell(a, `${launcher} decisions`)))).toMatch(/\n(?:no decisions yet|\d+ decisions?, newest first)/);
    }
    expect(await status(a)).toMatchObject({ tripped: true });
    await wayOutOpen(a);
  });

  it("payloads of unexpected shapes are denied, in the agent's format", async () => {
    const [tool, input] = PROFILES[agent].ordinary(a.box.project);
    const shell = PROFILES[agent].shellTool;
    const exact = await exactCommand(a);
    const odd: [string, Record<string, unknown> | string][] = [
      ['no tool_name', agentTool(a, tool, input, { tool_name: undefined })],
      ['a tool_name that is a number', agentTool(a, tool, input, { tool_name: 7 })],
      ['an empty tool_name', agentTool(a, tool, input, { tool_name: '' })],
      ['a tool_name that is an object', agentTool(a, tool, input, { tool_name: { name: shell } })],
      ['a relative cwd', agentTool(a, tool, input, { cwd: 'project' })],
      ['no cwd', agentTool(a, tool, input, { cwd: undefined })],
      ['the shell tool with tool_input a string', agentTool(a, shell, 'rm -rf /')],
      ['the shell tool with tool_input null', agentTool(a, shell, null)],
      ['the shell tool with tool_input an array', agentTool(a, shell, [exact])],
      ['the shell tool with a command that is a number', agentTool(a, shell, { command: 42 })],
      ['the shell tool with the way out under another field', agentTool(a, shell, { cmd: 42, script: exact })],
      ['the way out with no tool_name', agentShell(a, exact, undefined, { tool_name: undefined })],
      ['a tool_input that is a string for a file tool', agentTool(a, agent === 'codex' ? 'apply_patch' : 'write_file', 42)],
      ['text that is not JSON', `{"hook_event_name":"${PROFILES[agent].toolEvent}", not json`],
      ['a JSON array', '[]'],
      ['nothing at all', ''],
    ];
    for (const [name, payload] of odd) {
      const run = await hook(a, payload);
      expect(() => deniedAs(agent, run), name).not.toThrow();
    }
    expect(await status(a)).toMatchObject({ tripped: true });
    await wayOutOpen(a);
  });

  it("another agent's events, and events no agent sends, are answered with nothing and change nothing", async () => {
    const before = await status(a);
    const foreign = {
      codex: ['BeforeTool', 'AfterTool', 'BeforeAgent'],
      gemini: ['PreToolUse', 'PostToolUse', 'UserPromptSubmit'],
      qwen: ['BeforeTool', 'BeforeAgent', 'PermissionRequest'],
      copilot: ['BeforeTool', 'BeforeAgent', 'PostToolUse', 'preToolUse'],
      opencode: ['PreToolUse', 'UserPromptSubmit', 'BeforeTool'],
    }[agent];
    for (const event of [...foreign, 'Stop', 'SessionEnd', 'PreToolUseX', 'pretooluse', '']) {
      const run = await hook(a, agentPayload(a, event, { tool_name: PROFILES[agent].shellTool, tool_input: { command: `rm -rf ${a.box.data}` }, prompt: TRIP_PROMPTS[0] }));
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.stdout, event).toBe('');
    }
    expect(await status(a)).toMatchObject({ tripped: true, unsummarizedInteractions: before.unsummarizedInteractions });
    await wayOutOpen(a);
  });

  it('a prompt is never blocked on a tripped gate; it is counted and told the way out', async () => {
    const run = await hook(a, agentPrompt(a, 'Also rename the retry helper in src/net to retryWithBackoff, please.'));
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).not.toMatch(/"decision"|"permissionDecision"/);
    expect(run.stdout).toContain('needs a summary');
    await proveAndRetrip(a);
  });
});

describe.each(AGENTS.filter((agent) => PROFILES[agent].wayOutInHook))('the way out run by the hook for %s', (agent: AgentName) => {
  let a: AgentAttack;
  beforeAll(async () => {
    a = await trippedAgent(agent);
  });
  afterAll(() => endAgentAttack(a));

  it('--job of another job submits nothing to this one, and a job the socket would refuse is refused', async () => {
    const exact = await exactCommand(a);
    const other = deniedAs(agent, await hook(a, agentShell(a, exact.replace(' submit ', ' submit --job other-project-job '))));
    expect(other.startsWith(RAN)).toBe(true);
    expect(await status(a)).toMatchObject({ tripped: true, summaries: 0 });
    for (const job of ["'a\nb'", "'\u0001job'", `'${'j'.repeat(300)}'`]) {
      for (const command of [exact.replace(' submit ', ` submit --job ${job} `), `${launcherOf(a)} status --job ${job}`, `${launcherOf(a)} context --job=${job}`]) {
        const reason = deniedAs(agent, await hook(a, agentShell(a, command)));
        expect(reason, command).not.toMatch(/Summary accepted|gate (?:open|TRIPPED)/);
        expect(reason, command).toMatch(/job (?:contains control characters|is longer than 256 characters)/);
      }
    }
    expect(await status(a)).toMatchObject({ tripped: true, summaries: 0 });
    await wayOutOpen(a);
  });

  it('a --topic the socket would refuse is refused, and poisons no later deny message', async () => {
    const exact = await exactCommand(a);
    for (const topic of ["'a; rm -rf ~'", "'two words'", "'$(id)'", "'x\ny'", `'${'t'.repeat(80)}'`]) {
      const reason = deniedAs(agent, await hook(a, agentShell(a, exact.replace(' submit ', ` submit --topic ${topic} `))));
      expect(reason, topic).not.toContain('Summary accepted');
      expect(reason, topic).toContain('a topic is a word of letters, digits, dots and dashes');
    }
    expect(await status(a)).toMatchObject({ tripped: true, summaries: 0 });
    await wayOutOpen(a);
  });

  it("the deny message's exact command still opens the gate after all of them", async () => {
    await proveAgentWayOut(a);
  });
});

describe.each(AGENTS)('%s with the daemon down and a tripped job', (agent: AgentName) => {
  let a: AgentAttack;
  const quick = { RECAP_HOOK_DEADLINE_MS: '600' };
  beforeAll(async () => {
    a = await trippedAgent(agent);
  });
  afterAll(() => endAgentAttack(a));

  /** The tool calls the fallback must deny, in the agent's format, from the verdict file. */
  async function expectFallbackHolds(): Promise<void> {
    const [tool, input] = PROFILES[agent].ordinary(a.box.project);
    const reason = deniedAs(agent, await hook(a, agentTool(a, tool, input), quick));
    expect(reason).toContain('the daemon is not answering');
    expect(reason).toContain(`job ${a.job} as tripped`);
    expect(submitCommandIn(reason)).toContain(`${launcherOf(a)} submit <<'EOF'`);
    for (const payload of [
      agentShell(a, `rm -rf ${a.box.data}`),
      agentShell(a, 'echo hi > notes.md'),
      agentTool(
        a,
        agent === 'codex' ? 'apply_patch' : 'write_file',
        agent === 'codex' ? { command: `*** Begin Patch\n  *** Add File: ${a.box.config}\t\n+x\n*** End Patch\n` } : { file_path: a.box.config, content: 'x' },
      ),
      agentTool(a, 'mcp__fs__write_file', { path: '.recap/config.conf' }),
    ]) {
      deniedAs(agent, await hook(a, payload, quick));
    }
    // A prompt is never blocked.
    const prompt = await hook(a, agentPrompt(a, 'keep going'), quick);
    expect(prompt.exitCode, prompt.stderr).toBe(0);
    expect(prompt.stdout).not.toMatch(/"decision":"(?:deny|block)"|"permissionDecision"/);
    // The way out passes: the exact command of the deny message. Left as the message has it:
    // a stopped daemon still reads the request when it resumes, and for Codex and Gemini CLI
    // runs that submit then; a summary to be rejected keeps the gate tripped for what follows.
    allowedAs(await hook(a, agentShell(a, submitCommandIn(reason)), quick));
    // Not a submit --file on recap's own log, though.
    deniedAs(agent, await hook(a, agentShell(a, `${launcherOf(a)} submit --file ${join(a.box.data, 'recapd.log')}`), quick));
  }

  it('stopped (SIGSTOP): denied from the verdict file in its format; the way out passes', async () => {
    a.daemon.child.kill('SIGSTOP');
    try {
      await expectFallbackHolds();
    } finally {
      a.daemon.child.kill('SIGCONT');
    }
    await wayOutOpen(a);
  });

  it('killed, and unable to start again (its socket path taken by a file): the same', async () => {
    await a.daemon.stop('SIGKILL');
    rmSync(a.box.socket, { force: true });
    writeFileSync(a.box.socket, 'not a socket');
    try {
      await expectFallbackHolds();
    } finally {
      rmSync(a.box.socket, { force: true });
      a.daemon = await startDaemon(a.box);
    }
    await proveAgentWayOut(a);
  });
});
