// End to end: the real Codex CLI (test/agents), with recap's hooks installed by `recap
// install codex` into the sandbox's HOME, against a scripted model on 127.0.0.1, in Codex's
// default workspace-write sandbox, where the shell cannot reach recap's socket. One `codex
// exec` run trips the gate with a long prompt, meets the deny reason on a shell call and on
// a patch, submits a summary with the exact command the reason names (the hook runs it),
// and works again; a second run, with the daemon stopped, starts it from its SessionStart
// hook and is handed the summary.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codexFacts } from '../../src/agents/codex/facts.js';
import { jobIdFor } from '../../src/common/jobs.js';
import { agentSandbox, removeAgentSandbox, type AgentDirs } from '../helpers/agentSandbox.js';
import { assertCodexRuns, codexEnv, installCodexHooks, runCodex, type CodexResult } from '../helpers/codexCli.js';
import { removeSandbox, runCli, sandbox, startDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { answer, applyPatch, execCommand, MockOpenAIResponses } from '../helpers/mockOpenAIResponses.js';
import type { RecordedRequest } from '../helpers/scriptedModel.js';
import { goodSummary } from '../helpers/text.js';

const TEST_MS = 240_000;
// The prompt shares no words with goodSummary(): finding the summary's words in the second
// session proves the summary got there. Well over the default threshold of 500 tokens.
const PROMPT_SENTENCE = 'Please migrate the billing service from cron jobs to a queue, keep invoices idempotent, and log every retry with its cause. ';
const LONG_PROMPT = PROMPT_SENTENCE.repeat(30).trim();
const SUMMARY = goodSummary();
const SUMMARY_PHRASE = 'The user asked for a parser that reads the configuration file';
const NOTES = '*** Begin Patch\n*** Add File: notes.md\n+notes\n*** End Patch\n';
const DENIED_NOTES = '*** Begin Patch\n*** Add File: denied.md\n+denied\n*** End Patch\n';
const BLOCKED = 'Command blocked by PreToolUse hook: ';

const threadOf = (run: CodexResult) => run.events.find((e) => e.type === 'thread.started')?.thread_id as string;
const firstTurn = (mock: MockOpenAIResponses, after: number) => mock.requests.find((r) => r.n > after && r.kind === 'turn')!;

describe("the real Codex CLI with recap's hooks, in its workspace-write sandbox", () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  let mock: MockOpenAIResponses;
  let env: NodeJS.ProcessEnv;
  let job: string;
  let probe: Server;
  let first: CodexResult;

  beforeAll(async () => {
    assertCodexRuns();
    box = sandbox();
    job = jobIdFor(box.project);
    const dirs: AgentDirs = { root: box.dir, project: box.project, home: box.dir, tmp: join(box.dir, 'tmp'), hooks: join(box.dir, 'hooks') };
    mkdirSync(dirs.tmp);
    mock = await MockOpenAIResponses.start();
    // Codex's config.toml for the scripted model first: the install must keep it.
    env = { ...box.env, ...codexEnv(dirs, mock) };
    daemon = await startDaemon(box, env);
    const installed = await runCli(box, ['install', 'codex'], { env });
    expect(installed.code, installed.stderr).toBe(0);
    // A Unix socket that is not recap's, for the shell to fail to reach.
    probe = createServer((c) => c.end());
    await new Promise<void>((resolve) => probe.listen(join(box.dir, 'probe.sock'), resolve));
  });

  afterAll(async () => {
    await mock?.close();
    await new Promise((resolve) => probe?.close(resolve));
    await daemon?.stop();
    if (box) removeSandbox(box);
  });

  it("is installed with trusted hooks in the sandbox's ~/.codex, its own config kept", async () => {
    const config = readFileSync(join(box.dir, '.codex', 'config.toml'), 'utf8');
    expect(config.startsWith('model = "gpt-5.5"\nmodel_provider = "mock"\n')).toBe(true);
    expect(config.match(/^\[hooks\.state\."[^"]+"\]$/gm)).toHaveLength(3);
    const doctor = await runCli(box, ['doctor', '--json'], { env });
    const checks = (JSON.parse(doctor.stdout) as { checks: { name: string; ok: boolean }[] }).checks.filter((c) => c.name.startsWith('codex'));
    expect(checks).toEqual([expect.objectContaining({ name: 'codex hooks', ok: true }), expect.objectContaining({ name: 'codex trust', ok: true })]);
  });

  it(
    'gates a session: the long prompt trips it, a shell call and a patch are denied, the submit the reason names is run by the hook, work goes on',
    async () => {
      /** The launcher the deny reason names, taken from what the model was shown. */
      let named: string | undefined;
      const submitAsTold = (request: RecordedRequest) => {
        const shown = mock.lastToolResult(request)?.text ?? '';
        named = /^(\S+) submit <<'EOF'$/m.exec(shown)?.[1];
        return execCommand(`${named ?? 'no-command-named'} submit <<'EOF'\n${SUMMARY}\nEOF`);
      };
      mock.script(
        execCommand('echo before > before.txt'),
        applyPatch(DENIED_NOTES),
        submitAsTold,
        execCommand('echo ok > ran.txt'),
        applyPatch(NOTES),
        // The shell in this sandbox reaches no Unix socket: this is why the hook runs the way out.
        execCommand(
          `node -e 'require("net").connect(process.argv[1]).on("connect",()=>console.log("connected")).on("error",e=>console.log(e.code))' ${join(box.dir, 'probe.sock')}`,
        ),
        execCommand('env'),
        // Codex's hooks file is recap's wiring: off limits to the agent's patch tool, open gate or not.
        applyPatch(`*** Begin Patch\n*** Delete File: ${join(box.dir, '.codex', 'hooks.json')}\n*** End Patch\n`),
        answer('Done.'),
      );
      first = await runCodex(box.project, env, LONG_PROMPT, mock);
      const ctx = mock.describe();
      expect(mock.unexpected, ctx).toEqual([]);
      expect(mock.turnsTaken, ctx).toBe(9);

      // (1) The prompt was counted and tripped the gate before any tool ran: its context
      // reached the model's first request.
      const start = firstTurn(mock, 0).raw;
      expect(start.includes(`recap: job ${job} needs a summary before any other tool can run`), ctx).toBe(true);
      expect(start).toContain(`context in your exec_command tool`);

      // (2) The shell call and the patch were denied with the way out, and did not run.
      for (const index of [0, 1]) {
        const denied = mock.toolResult(index)!.text;
        expect(denied.startsWith(`${BLOCKED}recap: job ${job} needs a summary`), denied).toBe(true);
        expect(denied).toMatch(/\d+ unsummarized tokens reached the threshold of 500/);
        expect(denied).toContain('submit it with exactly this exec_command command, filling in every section:');
        expect(denied).toContain(PROMPT_SENTENCE.trim());
      }
      expect(existsSync(join(box.project, 'before.txt'))).toBe(false);
      expect(existsSync(join(box.project, 'denied.md'))).toBe(false);

      // (3) The model ran the submit command the reason named; the hook ran it outside the
      // sandbox and said so: accepted, the gate open.
      expect(named).toBe(join(box.data, 'bin', 'recap'));
      const submitted = mock.toolResult(2)!.text;
      expect(submitted.startsWith(`${BLOCKED}recap ran this command for you in its hook`), submitted).toBe(true);
      expect(submitted).toMatch(/Summary accepted: \d+ tokens, covering every interaction up to event #\d+\. The gate is open/);
      const status = await runCli(box, ['status', '--json'], { env });
      expect(JSON.parse(status.stdout)).toMatchObject({ job, tripped: false, summaries: 1 });
      expect((await runCli(box, ['chain', '--json'], { env })).stdout).toContain(SUMMARY_PHRASE);

      // (4) The next shell call and the next patch ran.
      expect(readFileSync(join(box.project, 'ran.txt'), 'utf8')).toBe('ok\n');
      expect(readFileSync(join(box.project, 'notes.md'), 'utf8')).toBe('notes\n');
      expect(mock.toolResult(5)!.text).toMatch(/Output:\nEPERM\n$/);
      const refused = mock.toolResult(7)!.text;
      expect(refused.startsWith(`${BLOCKED}recap: this call was refused: apply_patch on ${join(box.dir, '.codex', 'hooks.json')} would change what wires recap in`), refused).toBe(
        true,
      );
      expect(existsSync(join(box.dir, '.codex', 'hooks.json'))).toBe(true);
      expect(first.events.at(-2)).toMatchObject({ type: 'item.completed', item: { type: 'agent_message', text: 'Done.' } });

      // (5) The model's usage came from Codex's rollout file (each scripted response: 100
      // tokens in, 20 out), and the three denials were counted.
      type Row = { agent: string; interactions: number; denials: number; input: number; output: number; cacheCreation: number; cacheRead: number };
      const report = JSON.parse((await runCli(box, ['report', '--json', '--job', job], { env })).stdout) as { jobs: { agents: Row[] }[] };
      const main = report.jobs[0]!.agents.find((a) => a.agent === 'main')!;
      expect(main).toMatchObject({ interactions: 1, denials: 3, cacheCreation: 0, cacheRead: 0 });
      expect(main.output).toBeGreaterThan(0);
      expect(main.input).toBe(main.output * 5);
    },
    TEST_MS,
  );

  it("sets recap's shell markers and the session id in Codex's shell", () => {
    expect(first, 'the session above must have run').toBeDefined();
    const shown = mock.toolResult(6)!.text;
    for (const name of codexFacts.shellVariables) expect(shown).toMatch(new RegExp(`^${name}=.+$`, 'm'));
    expect(shown).toContain(`\n${codexFacts.sessionVariable}=${threadOf(first)}\n`);
  });

  it(
    'starts the stopped daemon from the next session start, fully detached, and hands the new session the summary',
    async () => {
      expect(first, 'the session above must have run').toBeDefined();
      await daemon.stop();
      const before = mock.requests.length;
      mock.script(answer('I have the summary.'));
      const second = await runCodex(box.project, env, 'What did we agree on so far?', mock);
      const started = readFileSync(join(box.data, 'recapd.log'), 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { pid: number; msg: string })
        .filter((l) => l.msg === 'recap daemon ready');
      expect(started).toHaveLength(1);
      try {
        expect(threadOf(second)).not.toBe(threadOf(first));
        // Had the daemon kept the hook's output open, Codex would have waited out the
        // hook's timeout and dropped its context: the memory arriving proves it did not.
        const body = firstTurn(mock, before).raw;
        expect(body.includes(`recap: the memory of job ${job}: 1 summaries in its chain.`), mock.describe()).toBe(true);
        expect(body).toContain(SUMMARY_PHRASE);
        expect(body).toContain('## Current State');
        expect(body).not.toContain(PROMPT_SENTENCE.trim());
        expect(second.events.at(-2)).toMatchObject({ item: { type: 'agent_message', text: 'I have the summary.' } });
      } finally {
        process.kill(started[0]!.pid, 'SIGTERM');
      }
    },
    TEST_MS,
  );
});

describe("Codex honours recap's answers as codexFacts writes them", () => {
  let dirs: AgentDirs;
  let mock: MockOpenAIResponses;
  beforeAll(async () => {
    assertCodexRuns();
    dirs = agentSandbox('codex-answers');
    mock = await MockOpenAIResponses.start();
  });
  afterAll(async () => {
    await mock?.close();
    removeAgentSandbox(dirs);
  });

  it(
    'a note beside a deny or a context is no failure, a note alone lets the call run, and a long context arrives whole only with additionalContextLimit 0',
    async () => {
      const env = codexEnv(dirs, mock);
      // 32 KB, its middle marked: past 10,000 bytes Codex hands over only a head and a tail.
      const big = (tag: string) => `${'context '.repeat(2000)}MIDDLE-${tag} ${'context '.repeat(2000)}`;
      const answers: Record<string, string> = {
        start: codexFacts.withNotice!(codexFacts.context('sessionStart', big('WHOLE')), 'a note').stdout,
        spilled: codexFacts.context('sessionStart', big('SPILLED')).stdout,
        prompt: codexFacts.withNotice!(codexFacts.context('prompt', 'PROMPT-CONTEXT'), 'a note').stdout,
        deny: codexFacts.withNotice!(codexFacts.deny('recap: denied by the test.'), 'a note').stdout,
        allow: codexFacts.notice('a note alone').stdout,
      };
      for (const [name, text] of Object.entries(answers)) writeFileSync(join(dirs.hooks, `${name}.json`), text);
      const script = join(dirs.hooks, 'answer.sh');
      writeFileSync(
        script,
        `#!/bin/bash\npayload=$(cat)\nname=$1\nif [ "$name" = pre ]; then [[ $payload == *DENY-ME* ]] && name=deny || name=allow; fi\ncat ${dirs.hooks}/$name.json\n`,
      );
      chmodSync(script, 0o755);
      const handler = (name: string, limit?: number) => ({
        type: 'command' as const,
        command: `${script} ${name}`,
        timeout: 10,
        ...(limit !== undefined ? { additionalContextLimit: limit } : {}),
      });
      installCodexHooks(dirs, {
        SessionStart: [{ hooks: [handler('start', 0)] }, { hooks: [handler('spilled')] }],
        UserPromptSubmit: [{ hooks: [handler('prompt', 0)] }],
        PreToolUse: [{ matcher: '*', hooks: [handler('pre')] }],
      });
      mock.script(execCommand('echo DENY-ME > denied.txt'), execCommand('echo ran > ran.txt'), answer('Done.'));
      await runCodex(dirs.project, env, 'Go.', mock);
      expect(mock.unexpected, mock.describe()).toEqual([]);
      const start = firstTurn(mock, 0).raw;
      const has = (text: string) => start.includes(text);
      expect([has('MIDDLE-WHOLE'), has('PROMPT-CONTEXT'), has('MIDDLE-SPILLED'), has('Full hook output saved to:')]).toEqual([true, true, false, true]);
      // One period: Codex adds its own after the reason.
      expect(mock.toolResult(0)?.text).toBe('Command blocked by PreToolUse hook: recap: denied by the test. Command: echo DENY-ME > denied.txt');
      expect(existsSync(join(dirs.project, 'denied.txt'))).toBe(false);
      expect(readFileSync(join(dirs.project, 'ran.txt'), 'utf8')).toBe('ran\n');
    },
    TEST_MS,
  );
});
