// bin/recap-hook.sh, the launcher every installed hook command runs: `/bin/sh recap-hook.sh
// NODE AGENT` posts the payload to the daemon with bare perl (bin/recap-launch.pl), or curl
// without perl, and prints its answer; every test of the launcher runs over both. Against a real
// daemon, for every agent with command hooks: it answers exactly as recap-hook does, without
// starting Node (the Node it is handed does not exist); it hands the call to recap-hook, stdin
// unread, when the daemon cannot take it; and no perl, curl, id or node on PATH, perl's
// environment, ~/.curlrc, payload or stalled daemon turns a deny into an allow.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { launcherSocketPath } from '../../src/common/paths.js';
import { blockSocketPath, ROOT, runCli, trackedSandboxes, type Sandbox } from '../helpers/daemon.js';
import { prose } from '../helpers/text.js';

const LAUNCHER = join(ROOT, 'bin', 'recap-hook.sh');
const HOOK = join(ROOT, 'bin', 'recap-hook.cjs');
const TRANSPORT = join(ROOT, 'bin', 'recap-launch.pl');
/** A Node that is not there: an answer that comes anyway came from the daemon, through perl or curl. */
const NO_NODE = '/nonexistent/bin/node';
const HANG_LIMIT_MS = 15_000;

type Run = { code: number | null; stdout: string; stderr: string; hung: boolean };
type RunOptions = { cwd: string; env?: NodeJS.ProcessEnv; endStdin?: boolean };

function run(box: Sandbox, command: string, args: string[], input: string, options: RunOptions): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: options.cwd, env: { ...box.env, ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdin.on('error', () => undefined);
    const timer = setTimeout(() => child.kill('SIGKILL'), HANG_LIMIT_MS);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, hung: signal === 'SIGKILL' });
    });
    child.stdin.write(input);
    if (options.endStdin ?? true) child.stdin.end();
  });
}

/** The transports the launcher can use; RECAP_LAUNCHER_TRANSPORT=curl picks curl over perl. */
const TRANSPORTS = ['perl', 'curl'] as const;
type Transport = (typeof TRANSPORTS)[number];
type Launch = (box: Sandbox, agent: string, input: string, options: RunOptions & { node?: string }) => Promise<Run>;
const launcherOver =
  (transport: Transport): Launch =>
  (box, agent, input, options) =>
    run(box, '/bin/sh', [LAUNCHER, options.node ?? NO_NODE, agent], input, {
      ...options,
      env: { ...(transport === 'curl' ? { RECAP_LAUNCHER_TRANSPORT: 'curl' } : {}), ...options.env },
    });
const recapHook = (box: Sandbox, agent: string, input: string, options: RunOptions) => run(box, process.execPath, [HOOK, agent], input, options);

/**
 * The launcher's answer, after checking that recap-hook gives the same one. Answers carry
 * one-time notices (a session told once that its gate tripped), so the two are compared on
 * the calls after the first.
 */
const sameAsRecapHookOver =
  (launcher: Launch) =>
  async (box: Sandbox, agent: string, input: string, options: RunOptions): Promise<Run> => {
    const first = await launcher(box, agent, input, options);
    const byNode = await recapHook(box, agent, input, options);
    expect(await launcher(box, agent, input, options)).toEqual({ ...byNode, stderr: '' });
    return first;
  };

/** Each agent's prompt, file read and shell call, in the shape its hooks send. */
type Shapes = { prompt: (cwd: string, text: string) => string; read: (cwd: string, file: string) => string; shell: (cwd: string, command: string) => string };
const base = (cwd: string, event: string) => ({ session_id: `launcher-${cwd.split('/').pop()}`, transcript_path: join(cwd, 't.jsonl'), cwd, hook_event_name: event });
const json = (value: object) => JSON.stringify(value);
const AGENTS: Record<string, Shapes> = {
  claude: {
    prompt: (cwd, prompt) => json({ ...base(cwd, 'UserPromptSubmit'), prompt }),
    read: (cwd, file_path) => json({ ...base(cwd, 'PreToolUse'), tool_name: 'Read', tool_input: { file_path }, tool_use_id: 'toolu_1' }),
    shell: (cwd, command) => json({ ...base(cwd, 'PreToolUse'), tool_name: 'Bash', tool_input: { command, description: 'run' }, tool_use_id: 'toolu_2' }),
  },
  codex: {
    prompt: (cwd, prompt) => json({ ...base(cwd, 'UserPromptSubmit'), turn_id: 't1', prompt }),
    read: (cwd, file) => json({ ...base(cwd, 'PreToolUse'), turn_id: 't1', tool_name: 'Bash', tool_input: { command: `cat ${file}` }, tool_use_id: 'call_1' }),
    shell: (cwd, command) => json({ ...base(cwd, 'PreToolUse'), turn_id: 't1', tool_name: 'Bash', tool_input: { command }, tool_use_id: 'call_2' }),
  },
  gemini: {
    prompt: (cwd, prompt) => json({ ...base(cwd, 'BeforeAgent'), prompt }),
    read: (cwd, file_path) => json({ ...base(cwd, 'BeforeTool'), tool_name: 'read_file', tool_input: { file_path } }),
    shell: (cwd, command) => json({ ...base(cwd, 'BeforeTool'), tool_name: 'run_shell_command', tool_input: { command } }),
  },
  qwen: {
    prompt: (cwd, prompt) => json({ ...base(cwd, 'UserPromptSubmit'), prompt }),
    read: (cwd, file_path) => json({ ...base(cwd, 'PreToolUse'), tool_name: 'read_file', tool_input: { file_path }, tool_use_id: 'toolu_1' }),
    shell: (cwd, command) => json({ ...base(cwd, 'PreToolUse'), tool_name: 'run_shell_command', tool_input: { command }, tool_use_id: 'toolu_2' }),
  },
  copilot: {
    prompt: (cwd, prompt) => json({ ...base(cwd, 'UserPromptSubmit'), prompt }),
    read: (cwd, path) => json({ ...base(cwd, 'PreToolUse'), tool_name: 'view', tool_input: { path } }),
    shell: (cwd, command) => json({ ...base(cwd, 'PreToolUse'), tool_name: 'bash', tool_input: { command, description: 'run' } }),
  },
};

const { newBox, start } = trackedSandboxes(afterEach);

function projectIn(box: Sandbox, name: string): string {
  const cwd = join(box.dir, name);
  mkdirSync(join(cwd, '.git'), { recursive: true });
  return cwd;
}

/** The text of a deny in any agent's format: the reason, wherever the agent wants it. */
function denial(stdout: string): string | undefined {
  if (stdout === '') return undefined;
  const answer = JSON.parse(stdout) as Record<string, unknown>;
  const specific = answer.hookSpecificOutput as Record<string, unknown> | undefined;
  const reason = specific?.permissionDecisionReason ?? answer.permissionDecisionReason ?? answer.reason;
  const denied = specific?.permissionDecision === 'deny' || answer.permissionDecision === 'deny' || answer.decision === 'deny' || answer.decision === 'block';
  return denied ? String(reason) : undefined;
}

/** A command of the way out the deny names (`<recap> status`, by the path recap names). */
const wayOutIn = (reason: string) => `${/Meanwhile only (\S+) status/.exec(reason)![1]!} status`;

// Every test below, over each transport: bare perl, and curl where /usr/bin/perl is missing.
/**
 * With the daemon stopped (its socket still takes connections, into its backlog, and says
 * nothing), the launcher hands the call to recap-hook within `deadlineMs`, which judges the
 * whole payload: the tripped job denied from the verdict file, the way out let through.
 */
async function stoppedDaemonHandsOver(launcher: Launch, name: string, deadlineMs: number): Promise<void> {
  const box = newBox();
  const daemon = await start(box);
  const cwd = projectIn(box, name);
  expect((await runCli(box, ['record', '--kind', 'prompt'], { cwd, input: prose(30) })).code).toBe(0);
  const denied = await launcher(box, 'claude', AGENTS.claude!.read(cwd, join(cwd, 'a.ts')), { cwd });
  const wayOut = AGENTS.claude!.shell(cwd, wayOutIn(denial(denied.stdout)!));
  daemon.child.kill('SIGSTOP');
  try {
    const options = { cwd, node: process.execPath, env: { RECAP_HOOK_DEADLINE_MS: String(deadlineMs) } };
    const answer = await launcher(box, 'claude', AGENTS.claude!.read(cwd, join(cwd, 'a.ts')), options);
    expect(answer.hung).toBe(false);
    expect(denial(answer.stdout)).toMatch(/^recap: the daemon is not answering .*it last knew job \S+ as tripped/s);
    const out = await launcher(box, 'claude', wayOut, options);
    expect(denial(out.stdout)).toBeUndefined();
    expect(JSON.parse(out.stdout)).toEqual({ systemMessage: expect.stringContaining('the recap command was let through') });
  } finally {
    daemon.child.kill('SIGCONT');
  }
}

describe.each(TRANSPORTS)('over %s', (transport) => {
  const launcher = launcherOver(transport);
  const sameAsRecapHook = sameAsRecapHookOver(launcher);

  describe('the hook launcher, with the daemon running', () => {
    it.each(Object.keys(AGENTS))('answers %s exactly as recap-hook does, without starting Node', async (agent) => {
      const shapes = AGENTS[agent]!;
      const box = newBox();
      await start(box);
      const cwd = projectIn(box, `p-${agent}`);
      const file = join(cwd, 'a.ts');

      // An open gate: the read is let through, by the daemon (no Node to hand it to).
      const open = await sameAsRecapHook(box, agent, shapes.read(cwd, file), { cwd });
      expect(open).toMatchObject({ code: 0, hung: false });
      expect(denial(open.stdout)).toBeUndefined();

      // The prompt is counted through the launcher, and trips the gate.
      expect((await launcher(box, agent, shapes.prompt(cwd, prose(30)), { cwd })).code).toBe(0);
      const status = await runCli(box, ['status', '--json'], { cwd });
      expect(JSON.parse(status.stdout)).toMatchObject({ tripped: true, reason: 'threshold' });

      const denied = await sameAsRecapHook(box, agent, shapes.read(cwd, file), { cwd });
      expect(denial(denied.stdout)).toContain('recap submit');

      // The way out the deny names passes, as it does through recap-hook.
      const wayOut = shapes.shell(cwd, wayOutIn(denial(denied.stdout)!));
      const out = await sameAsRecapHook(box, agent, wayOut, { cwd });
      expect(out.code).toBe(0);
      // Codex and Gemini CLI get its output in the hook's answer (recap runs it there, see wayOutInHook).
      const reason = denial(out.stdout);
      if (reason !== undefined) expect(reason).toMatch(/^recap ran this command for you/);
    });

    it('refuses what it cannot judge as recap-hook does: a tool call is denied, a prompt only noted', async () => {
      const box = newBox();
      await start(box);
      const cwd = projectIn(box, 'unreadable');
      for (const input of ['not json', '[1, 2]', '', '{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"comm']) {
        const answer = await sameAsRecapHook(box, 'claude', input, { cwd });
        expect(denial(answer.stdout), JSON.stringify(input)).toMatch(
          /^recap: the hook (input is not (one complete JSON|a JSON) object|got no input), so this tool call was denied/,
        );
      }
      const cutPrompt = '{"hook_event_name": "UserPromptSubmit", "prompt": "cut sh';
      const noted = await sameAsRecapHook(box, 'claude', cutPrompt, { cwd });
      expect(JSON.parse(noted.stdout)).toEqual({ systemMessage: expect.stringContaining('UserPromptSubmit was not checked') });
    });

    it('denies a tool call over 64 MiB and counts a prompt that large as far as the limit, the daemon staying up', async () => {
      const box = newBox();
      await start(box);
      const cwd = projectIn(box, 'huge');
      const huge = 'x'.repeat(65 * 1024 * 1024);
      const write = await launcher(box, 'claude', json({ ...base(cwd, 'PreToolUse'), tool_name: 'Write', tool_input: { file_path: join(cwd, 'a'), content: huge } }), { cwd });
      expect(denial(write.stdout)).toContain('over 64 MiB');
      const prompt = await launcher(box, 'claude', AGENTS.claude!.prompt(cwd, `${prose(30)} ${huge}`), { cwd });
      expect(prompt.code).toBe(0);
      const status = JSON.parse((await runCli(box, ['status', '--json'], { cwd })).stdout) as { tripped: boolean };
      expect(status.tripped).toBe(true);
      expect(denial((await launcher(box, 'claude', AGENTS.claude!.read(cwd, join(cwd, 'a')), { cwd })).stdout)).toContain('recap submit');
    });

    it('ignores a curl, id or node early on PATH and ~/.curlrc: a tripped job stays denied', async () => {
      const box = newBox();
      await start(box);
      const cwd = projectIn(box, 'shims');
      expect((await runCli(box, ['record', '--kind', 'prompt'], { cwd, input: prose(30) })).code).toBe(0);
      const shims = join(box.dir, 'bin-shims');
      mkdirSync(shims);
      for (const name of ['curl', 'id', 'node']) {
        writeFileSync(join(shims, name), '#!/bin/sh\ncat >/dev/null\nprintf "0\\n\\n200"\n');
        chmodSync(join(shims, name), 0o755);
      }
      // A curlrc that would send the request elsewhere and throw the answer away.
      writeFileSync(join(box.dir, '.curlrc'), 'unix-socket = /nonexistent.sock\noutput = /dev/null\nwrite-out = "0\\n\\n200"\n');
      const env = { PATH: `${shims}:${box.env.PATH}`, HOME: box.dir, CURL_HOME: box.dir };
      const answer = await launcher(box, 'claude', AGENTS.claude!.read(cwd, join(cwd, 'a.ts')), { cwd, env });
      expect(denial(answer.stdout)).toContain('recap submit');
    });

    it('hands RECAP_DISABLE to recap-hook, which judges whether the user set it', async () => {
      const box = newBox();
      await start(box);
      const cwd = projectIn(box, 'disable');
      expect((await runCli(box, ['record', '--kind', 'prompt'], { cwd, input: prose(30) })).code).toBe(0);
      const read = AGENTS.claude!.read(cwd, join(cwd, 'a.ts'));
      // Handed to the missing Node: the launcher did not answer it itself.
      expect((await launcher(box, 'claude', read, { cwd, env: { RECAP_DISABLE: '1' } })).code).toBe(127);
      // Set by this test, not by the user's shell before the agent: ignored by recap-hook.
      const answer = await launcher(box, 'claude', read, { cwd, env: { RECAP_DISABLE: '1' }, node: process.execPath });
      expect(denial(answer.stdout)).toContain('recap submit');
    });

    it('hands the call to recap-hook, stdin unread, when the daemon is stopped: its verdict file keeps the tripped job denied, the way out open', () =>
      stoppedDaemonHandsOver(launcher, 'stalled', 800));

    it('denies, never allows, a call whose payload was sent when the connection then fails', async () => {
      const box = newBox();
      const cwd = projectIn(box, 'lost');
      // A daemon that dies once it has read the call: it takes the whole body, then drops the
      // connection (closed with nothing unread, so it ends without a reset: the same exit each run).
      mkdirSync(dirname(box.socket), { recursive: true });
      const server = createServer((req) => req.resume().on('end', () => req.socket.destroy()));
      await new Promise<void>((resolve) => server.listen(launcherSocketPath(box.socket), resolve));
      try {
        const answer = await launcher(box, 'claude', AGENTS.claude!.read(cwd, join(cwd, 'a.ts')), { cwd, node: process.execPath });
        expect(denial(answer.stdout)).toMatch(new RegExp(`^recap: recap's hook launcher lost this call when its connection to the daemon failed \\(${transport} exit 52`));
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    });
  });

  describe('the hook launcher against a flood or a daemon that cannot take the call', () => {
    it('answers while hundreds of idle connections hold its socket, and the daemon stays reachable', async () => {
      const box = newBox();
      await start(box);
      const cwd = projectIn(box, 'flood');
      expect((await runCli(box, ['record', '--kind', 'prompt'], { cwd, input: prose(30) })).code).toBe(0);
      const idle = await Promise.all(
        Array.from(
          { length: 300 },
          () =>
            new Promise<Socket>((resolve, reject) => {
              const socket = connect(launcherSocketPath(box.socket), () => resolve(socket));
              socket.once('error', reject);
            }),
        ),
      );
      try {
        const answer = await launcher(box, 'claude', AGENTS.claude!.read(cwd, join(cwd, 'a.ts')), { cwd, node: process.execPath });
        expect(denial(answer.stdout)).toContain('recap submit');
        expect((await runCli(box, ['status', '--json'], { cwd })).code).toBe(0);
      } finally {
        for (const socket of idle) socket.destroy();
      }
    });

    it('hands the call to recap-hook, stdin unread, when the daemon refuses it before the payload is sent', async () => {
      const box = newBox();
      await start(box);
      const cwd = projectIn(box, 'refused');
      expect((await runCli(box, ['record', '--kind', 'prompt'], { cwd, input: prose(30) })).code).toBe(0);
      // In the daemon's place on the launcher socket: a server that knows no agent (as a daemon older than the launcher would not know a newer one).
      const path = launcherSocketPath(box.socket);
      const server = createServer();
      server.on('checkContinue', (_req, res: ServerResponse) => res.writeHead(404, { connection: 'close' }).end());
      // The daemon's socket keeper makes a deleted socket again: on a busy machine it may win the
      // race between the removal and the listen, and the path is removed again.
      for (let bound = false; !bound;) {
        rmSync(path, { force: true });
        bound = await new Promise<boolean>((resolve) => {
          server.once('error', () => resolve(false));
          server.listen(path, () => resolve(true));
        });
      }
      try {
        const answer = await launcher(box, 'claude', AGENTS.claude!.read(cwd, join(cwd, 'a.ts')), { cwd, node: process.execPath });
        expect(denial(answer.stdout)).toContain('recap submit');
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    });
  });

  describe('the hook launcher, with no daemon that speaks to it', () => {
    it('hands the call to recap-hook with stdin unread when no daemon runs: it starts one, which counts the prompt', async () => {
      const box = newBox();
      const cwd = projectIn(box, 'autostart');
      expect(existsSync(box.socket)).toBe(false);
      const prompt = await launcher(box, 'claude', AGENTS.claude!.prompt(cwd, prose(30)), { cwd, node: process.execPath });
      try {
        expect(prompt.code).toBe(0);
        const status = JSON.parse((await runCli(box, ['status', '--json'], { cwd })).stdout) as { tripped: boolean };
        expect(status.tripped).toBe(true);
      } finally {
        await runCli(box, ['stop']);
      }
    });

    it('hands the call to recap-hook, stdin unread, when a killed daemon left its launcher socket behind', async () => {
      const box = newBox();
      const daemon = await start(box);
      const cwd = projectIn(box, 'killed');
      expect((await runCli(box, ['record', '--kind', 'prompt'], { cwd, input: prose(30) })).code).toBe(0);
      await daemon.stop('SIGKILL');
      expect(existsSync(launcherSocketPath(box.socket))).toBe(true);
      const read = AGENTS.claude!.read(cwd, join(cwd, 'a.ts'));
      // recap-hook starts a daemon again, which still knows the job as tripped.
      const answer = await launcher(box, 'claude', read, { cwd, node: process.execPath });
      try {
        expect(denial(answer.stdout)).toContain('recap submit');
      } finally {
        await runCli(box, ['stop']);
      }
    });

    it('hands the call to recap-hook when the daemon has no launcher socket (an older recap)', async () => {
      const box = newBox();
      await start(box);
      const cwd = projectIn(box, 'older');
      expect((await runCli(box, ['record', '--kind', 'prompt'], { cwd, input: prose(30) })).code).toBe(0);
      // A folder in its place is a path no socket can take.
      blockSocketPath(launcherSocketPath(box.socket));
      const read = AGENTS.claude!.read(cwd, join(cwd, 'a.ts'));
      // Handed to the missing Node: proof it did not answer itself.
      expect((await launcher(box, 'claude', read, { cwd })).code).toBe(127);
      const answer = await launcher(box, 'claude', read, { cwd, node: process.execPath });
      expect(denial(answer.stdout)).toContain('recap submit');
    });
  });
});

/** A server in the daemon's place on the launcher socket (the daemon's socket keeper, if one runs, may put its own back first: then again). */
async function inPlaceOfLauncher(box: Sandbox, server: Server): Promise<void> {
  const path = launcherSocketPath(box.socket);
  mkdirSync(dirname(path), { recursive: true });
  for (let bound = false; !bound;) {
    rmSync(path, { force: true });
    bound = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(path, () => resolve(true));
    });
  }
}

const closed = (server: Server) => new Promise((resolve) => server.close(resolve));

/** bin/recap-launch.pl run as the launcher runs it: socket, agent, the wait and the daemon's answer deadline in ms. */
function perlTransport(box: Sandbox, socket: string, waitMs: number, input: string, env: NodeJS.ProcessEnv = {}): Promise<Run & { ms: number }> {
  const started = Date.now();
  const args = ['-T', '-f', '-C0', '--', TRANSPORT, socket, 'claude', String(waitMs), String(Math.floor((waitMs * 4) / 5))];
  return run(box, '/usr/bin/perl', args, input, { cwd: box.dir, env }).then((result) => ({ ...result, ms: Date.now() - started }));
}

describe('the hook launcher over bare perl: where it meets the daemon', () => {
  const launcher = launcherOver('perl');

  it('exits as curl does when nobody listens (7) and when the daemon never says 100 Continue (28, in time), stdin untaken', async () => {
    const box = newBox();
    const path = launcherSocketPath(box.socket);
    mkdirSync(dirname(path), { recursive: true });
    expect(await perlTransport(box, path, 5000, 'payload')).toMatchObject({ code: 7, stdout: '\n000 0' });
    // 125 ms, the wait of the shortest deadline recap-hook takes (200 ms): select's, not the alarm's whole second.
    const server = createServer();
    server.on('checkContinue', () => undefined);
    await inPlaceOfLauncher(box, server);
    try {
      const silent = await perlTransport(box, path, 125, 'payload');
      expect(silent).toMatchObject({ code: 28, stdout: '\n000 0' });
      expect(silent.ms).toBeLessThan(900);
    } finally {
      server.closeAllConnections();
      await closed(server);
    }
  });

  it('hands the call to recap-hook, stdin unread, when the daemon never says 100 Continue, within the shortest deadline (200 ms); the way out passes', () =>
    stoppedDaemonHandsOver(launcher, 'no-continue', 200));

  it('denies a call whose payload the daemon took and never answered', async () => {
    const box = newBox();
    const cwd = projectIn(box, 'unanswered');
    const server = createServer(() => undefined);
    await inPlaceOfLauncher(box, server);
    try {
      const options = { cwd, node: process.execPath, env: { RECAP_HOOK_DEADLINE_MS: '400' } };
      const answer = await launcher(box, 'claude', AGENTS.claude!.read(cwd, join(cwd, 'a.ts')), options);
      expect(denial(answer.stdout)).toMatch(/lost this call when its connection to the daemon failed \(perl exit 28, HTTP status 000\)/);
    } finally {
      server.closeAllConnections();
      await closed(server);
    }
  });

  it('denies a call whose answer is cut short, though its first line says allow', async () => {
    const box = newBox();
    const cwd = projectIn(box, 'cut');
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-length': 100 });
        res.write('0\n');
        setImmediate(() => res.destroy());
      });
    });
    await inPlaceOfLauncher(box, server);
    try {
      const answer = await launcher(box, 'claude', AGENTS.claude!.read(cwd, join(cwd, 'a.ts')), { cwd, node: process.execPath });
      expect(denial(answer.stdout)).toMatch(/lost this call .*\(perl exit 18, HTTP status 200\)/);
    } finally {
      await closed(server);
    }
  });

  it('sends a 2 MB payload whole: a tripped job denies the call as the daemon judged it', async () => {
    const box = newBox();
    await start(box);
    const cwd = projectIn(box, 'two-mb');
    expect((await runCli(box, ['record', '--kind', 'prompt'], { cwd, input: prose(30) })).code).toBe(0);
    const content = 'y'.repeat(2 * 1024 * 1024);
    const write = json({ ...base(cwd, 'PreToolUse'), tool_name: 'Write', tool_input: { file_path: join(cwd, 'b.ts'), content }, tool_use_id: 'toolu_3' });
    const answer = await launcher(box, 'claude', write, { cwd });
    expect(answer.code).toBe(0);
    expect(denial(answer.stdout)).toContain('recap submit');
  });

  it("ignores a perl early on PATH and perl's environment (PERL5OPT, PERL5LIB, PERLIO, PERL_UNICODE): a tripped job stays denied", async () => {
    const box = newBox();
    await start(box);
    const cwd = projectIn(box, 'perl-env');
    expect((await runCli(box, ['record', '--kind', 'prompt'], { cwd, input: prose(30) })).code).toBe(0);
    // A module that would answer "allow" and exit before recap's program runs, and a perl shim.
    const lib = join(box.dir, 'perl-lib');
    mkdirSync(lib);
    writeFileSync(join(lib, 'Allow.pm'), 'package Allow; print "0\\n\\n200 1"; exit 0;\n1;\n');
    const shims = join(box.dir, 'bin-shims');
    mkdirSync(shims);
    writeFileSync(join(shims, 'perl'), '#!/bin/sh\ncat >/dev/null\nprintf "0\\n\\n200 1"\n');
    chmodSync(join(shims, 'perl'), 0o755);
    const env = { PATH: `${shims}:${box.env.PATH}`, PERL5OPT: '-MAllow', PERL5LIB: lib, PERLLIB: lib, PERLIO: ':crlf', PERL_UNICODE: 'SDA' };
    // The module does answer for a perl that heeds the environment.
    expect((await run(box, '/usr/bin/perl', ['-e', '1'], '', { cwd, env })).stdout).toContain('200 1');
    const answer = await launcher(box, 'claude', AGENTS.claude!.read(cwd, join(cwd, 'a.ts')), { cwd, env });
    expect(denial(answer.stdout)).toContain('recap submit');
  });
});
