// End to end: `recap install codex --sandbox` and the real Codex CLI, run with no sandbox flag
// so that the sandbox_mode recap wrote into config.toml is the one in force. A program the
// agent writes and runs tries to raise the user config's threshold, to send `pause` to
// recap's socket, to bind a socket of its own and to signal the daemon: Codex's Linux
// sandbox stops each one, while the project is written. Then the user trips the gate and the way out, run by the hook,
// opens it. `recap uninstall codex` takes the line out again.
import { mkdirSync, readFileSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobIdFor } from '../../src/common/jobs.js';
import type { AgentDirs } from '../helpers/agentSandbox.js';
import { assertCodexRuns, codexEnv, runCodex } from '../helpers/codexCli.js';
import { removeSandbox, runCli, startDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { configuredSandbox } from '../helpers/configuredSandbox.js';
import { filledIn, submitCommandIn } from '../helpers/gateAttack.js';
import { answer, applyPatch, execCommand, MockOpenAIResponses } from '../helpers/mockOpenAIResponses.js';
import type { RecordedRequest } from '../helpers/scriptedModel.js';

const TEST_MS = 240_000;
const CONFIG_TEXT = 'TOKEN_THRESHOLD=100000\n';
const BLOCKED = 'Command blocked by PreToolUse hook: ';

/** The agent's program, as a patch that adds it: each move on recap, its outcome printed as one JSON line. */
const program = (daemonPid: number) => [
  'import json, os, socket, struct, time',
  'def attempt(f):',
  '    try:',
  '        return {"ok": True, "value": f()}',
  '    except Exception as e:',
  '        return {"ok": False, "error": type(e).__name__, "errno": getattr(e, "errno", None)}',
  'def append(path, text):',
  '    with open(path, "a") as f:',
  '        f.write(text)',
  'def pause(path):',
  '    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)',
  '    s.connect(path)',
  '    body = json.dumps({"id": 1, "op": "pause", "until": int(time.time() * 1000) + 30 * 86400000}).encode()',
  '    s.sendall(struct.pack(">I", len(body)) + body)',
  '    return s.recv(4)',
  'def bind(path):',
  '    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)',
  '    s.bind(path)',
  'e = os.environ',
  'print(json.dumps({',
  '    "config": attempt(lambda: append(e["RECAP_CONFIG"], "TOKEN_THRESHOLD=100000000\\n")),',
  '    "project": attempt(lambda: append("written.txt", "written\\n")),',
  '    "data": attempt(lambda: sorted(os.listdir(e["RECAP_DATA_DIR"]))),',
  '    "pause": attempt(lambda: pause(e["RECAP_SOCKET"])),',
  '    "bind": attempt(lambda: bind(os.path.join(e["TMPDIR"], "taken.sock"))),',
  `    "signal": attempt(lambda: os.kill(${daemonPid}, 0)),`,
  '}))',
];
const patch = (daemonPid: number) =>
  `*** Begin Patch\n*** Add File: tidy.py\n${program(daemonPid)
    .map((l) => `+${l}`)
    .join('\n')}\n*** End Patch\n`;

type Attempt = { ok: boolean; value?: unknown; error?: string; errno?: number };

describe('the real Codex CLI in the sandbox recap turned on', () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  let mock: MockOpenAIResponses;
  let env: NodeJS.ProcessEnv;
  let job: string;
  let configToml: string;

  beforeAll(async () => {
    assertCodexRuns();
    box = configuredSandbox(CONFIG_TEXT);
    job = jobIdFor(box.project);
    const dirs: AgentDirs = { root: box.dir, project: box.project, home: box.dir, tmp: join(box.dir, 'tmp'), hooks: join(box.dir, 'hooks') };
    mkdirSync(dirs.tmp);
    mock = await MockOpenAIResponses.start();
    env = { ...box.env, ...codexEnv(dirs, mock) };
    configToml = join(box.dir, '.codex', 'config.toml');
    // Everything of this test lives under /tmp, which workspace-write lets commands write; a
    // user's home is not. Taking /tmp out makes the test's home what a user's is.
    appendFileSync(configToml, '\n[sandbox_workspace_write]\nexclude_slash_tmp = true\n');
    daemon = await startDaemon(box, env);
    const installed = await runCli(box, ['install', 'codex', '--sandbox'], { env });
    expect(installed.code, installed.stderr).toBe(0);
  });

  afterAll(async () => {
    await mock?.close();
    await daemon?.stop();
    if (box) removeSandbox(box);
  });

  it('writes sandbox_mode among the top-level keys, and doctor finds it', async () => {
    expect(readFileSync(configToml, 'utf8').startsWith('model = "gpt-5.5"\nmodel_provider = "mock"\nsandbox_mode = "workspace-write"\n\n[model_providers.mock]\n')).toBe(true);
    const doctor = await runCli(box, ['doctor', '--json'], { env });
    expect(JSON.parse(doctor.stdout).checks).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'codex sandbox', ok: true })]));
  });

  it(
    "stops the agent's program at the kernel, and the way out, run by the hook, opens the tripped gate",
    async () => {
      mock.script(
        applyPatch(patch(daemon.child.pid!)),
        execCommand('python3 tidy.py'),
        async () => {
          const tripped = await runCli(box, ['trip', '--reason', 'summarize before the release'], { env });
          expect(tripped.code, tripped.stderr).toBe(0);
          return execCommand('cat tidy.py');
        },
        (request: RecordedRequest) => execCommand(filledIn(submitCommandIn((mock.lastToolResult(request)?.text ?? '').replace(/\. Command: [^]*$/, '')))),
        execCommand('echo ok > ran.txt'),
        answer('Done.'),
      );
      // No --sandbox flag: config.toml's sandbox_mode decides.
      await runCodex(box.project, env, 'Tidy up the project.', mock, []);
      const ctx = mock.describe();
      expect(mock.unexpected, ctx).toEqual([]);
      expect(mock.turnsTaken, ctx).toBe(6);

      const shown = mock.toolResult(1)!.text;
      const outcome = JSON.parse(/^\{.*\}$/m.exec(shown)?.[0] ?? '{}') as Record<string, Attempt>;
      expect(outcome.project, shown).toEqual({ ok: true, value: null });
      expect(outcome.config, shown).toMatchObject({ ok: false, errno: 30 }); // EROFS
      // Codex's sandbox confines writes, not reads: recap's data folder is in plain sight.
      expect(outcome.data, shown).toMatchObject({ ok: true, value: expect.arrayContaining(['log']) });
      expect(readFileSync(box.config, 'utf8')).toBe(CONFIG_TEXT);
      expect(outcome.pause, shown).toMatchObject({ ok: false, errno: 1 }); // EPERM
      expect(outcome.bind, shown).toMatchObject({ ok: false, errno: 1 });
      // Its own process namespace: the daemon is not there to be signalled.
      expect(outcome.signal, shown).toMatchObject({ ok: false, error: 'ProcessLookupError' });
      const status = JSON.parse((await runCli(box, ['status', '--json'], { env })).stdout);
      expect(status.pausedUntil).toBeUndefined();

      expect(mock.toolResult(2)!.text).toContain(`job ${job} needs a summary`);
      const submitted = mock.toolResult(3)!.text;
      expect(submitted.startsWith(`${BLOCKED}recap ran this command for you in its hook`), submitted).toBe(true);
      expect(submitted).toContain('Summary accepted');
      expect(JSON.parse((await runCli(box, ['status', '--json'], { env })).stdout)).toMatchObject({ job, tripped: false, summaries: 1 });
      expect(readFileSync(join(box.project, 'ran.txt'), 'utf8')).toBe('ok\n');
    },
    TEST_MS,
  );

  it('recap uninstall codex takes the line out again', async () => {
    const removed = await runCli(box, ['uninstall', 'codex'], { env });
    expect(removed.code, removed.stderr).toBe(0);
    const text = readFileSync(configToml, 'utf8');
    expect(text).not.toContain('sandbox_mode');
    expect(text).toContain('exclude_slash_tmp = true');
  });
});
