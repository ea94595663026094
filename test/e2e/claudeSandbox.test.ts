// End to end: `recap install claude --sandbox` and the real Claude Code, whose Bash tool then
// runs under bubblewrap. Programs the agent writes and runs (not command lines that name
// recap, which recap's hook refuses anyway) try to raise the user config's threshold, read
// recap's event log, send `pause` to recap's socket and signal the daemon: the kernel stops each one, while a
// file the user's own sandbox settings let commands write is written. Then the user trips the
// gate, and the way out, which the sandboxed shell could not run, is answered by the hook and
// opens it. `recap uninstall claude` leaves the user's own sandbox settings as they were.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobIdFor } from '../../src/common/jobs.js';
import { assertClaudeRuns, CLAUDE, claudeEnv, runClaude } from '../helpers/claudeCli.js';
import { RECAP, removeSandbox, ROOT, runCli, startDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { configuredSandbox } from '../helpers/configuredSandbox.js';
import { filledIn, submitCommandIn } from '../helpers/gateAttack.js';
import { answer, bash, callTool, MockAnthropic, read } from '../helpers/mockAnthropic.js';

const TEST_MS = 240_000;
const CONFIG_TEXT = 'TOKEN_THRESHOLD=100000\n';
const RAN = 'recap ran this command for you in its hook';

/**
 * Why Claude Code's sandbox cannot run here, or undefined when it can: on Linux it needs
 * bubblewrap (with user namespaces) and socat.
 */
function sandboxMissing(): string | undefined {
  if (process.platform !== 'linux') return `Claude Code's sandbox is tested on Linux only (this is ${process.platform})`;
  const bwrap = spawnSync('bwrap', ['--ro-bind', '/', '/', '--dev', '/dev', '--unshare-user', '--unshare-net', 'true'], { encoding: 'utf8' });
  if (bwrap.error || bwrap.status !== 0)
    return `bubblewrap cannot run here (${bwrap.error?.message ?? bwrap.stderr.trim()}): apt-get install bubblewrap, and allow unprivileged user namespaces`;
  const socat = spawnSync('socat', ['-V'], { encoding: 'utf8' });
  if (socat.error || socat.status !== 0) return `socat is missing (${socat.error?.message ?? `exit ${socat.status}`}): apt-get install socat`;
  return undefined;
}
const missing = sandboxMissing();
if (missing !== undefined) console.warn(`skipping the Claude Code sandbox end-to-end test: ${missing}`);

/**
 * The agent's program: each move on recap, its outcome printed as one JSON line. The paths come
 * from the environment, so no command line names them.
 */
const program = (daemonPid: number) => `
import json, os, socket, struct, time
def attempt(f):
    try:
        return {"ok": True, "value": f()}
    except Exception as e:
        return {"ok": False, "error": type(e).__name__, "errno": getattr(e, "errno", None)}
def append(path, text):
    with open(path, "a") as f:
        f.write(text)
def pause(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    body = json.dumps({"id": 1, "op": "pause", "until": int(time.time() * 1000) + 30 * 86400000}).encode()
    s.sendall(struct.pack(">I", len(body)) + body)
    head = s.recv(4, socket.MSG_WAITALL)
    return json.loads(s.recv(struct.unpack(">I", head)[0], socket.MSG_WAITALL))
e = os.environ
print(json.dumps({
    "config": attempt(lambda: append(e["RECAP_CONFIG"], "TOKEN_THRESHOLD=100000000\\n")),
    "free": attempt(lambda: append(os.path.join(e["HOME"], "free.txt"), "written\\n")),
    "data": attempt(lambda: sorted(os.listdir(e["RECAP_DATA_DIR"]))),
    "pause": attempt(lambda: pause(e["RECAP_SOCKET"])),
    "signal": attempt(lambda: os.kill(${daemonPid}, 0)),
}))
`;

type Attempt = { ok: boolean; value?: unknown; error?: string; errno?: number };

const SCOPES = [{ scope: 'user' as const }, { scope: 'project' as const }];

describe.skipIf(missing !== undefined).each(SCOPES)('the real Claude Code in the sandbox recap configured, $scope scope', ({ scope }) => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  let mock: MockAnthropic;
  let job: string;
  /** The user's own settings, and the file recap's sandbox goes to (the same for the user scope). */
  let userFile: string;
  let settingsFile: string;
  const scoped = scope === 'project' ? ['--scope', 'project'] : [];

  beforeAll(async () => {
    assertClaudeRuns();
    // A project's shared settings name recap-hook by the bin on PATH.
    box = configuredSandbox(CONFIG_TEXT, { recap: RECAP, claude: CLAUDE, 'recap-hook': join(ROOT, 'bin', 'recap-hook.cjs') });
    job = jobIdFor(box.project);
    // The user's own sandbox settings: commands may write anywhere in their home, where recap's files are too.
    userFile = join(box.dir, '.claude', 'settings.json');
    mkdirSync(dirname(userFile));
    writeFileSync(userFile, `${JSON.stringify({ model: 'opus', sandbox: { filesystem: { allowWrite: [box.dir] } } }, null, 2)}\n`);
    settingsFile = scope === 'user' ? userFile : join(box.project, '.claude', 'settings.local.json');
    daemon = await startDaemon(box);
    const installed = await runCli(box, ['install', 'claude', '--sandbox', ...scoped]);
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toContain("Claude Code's own sandbox is on");
    mock = await MockAnthropic.start();
  }, TEST_MS);

  afterAll(async () => {
    await mock?.close();
    await daemon?.stop();
    if (box) removeSandbox(box);
  });

  it("writes the sandbox beside the user's own, and doctor finds it whole", async () => {
    const settings = JSON.parse(readFileSync(settingsFile, 'utf8'));
    expect(settings.sandbox).toMatchObject({ enabled: true, failIfUnavailable: true, allowUnsandboxedCommands: false });
    if (scope === 'user') expect(settings).toMatchObject({ model: 'opus', sandbox: { filesystem: { allowWrite: [box.dir] } } });
    expect(settings.sandbox.filesystem.denyRead).toEqual(expect.arrayContaining([box.data, box.config, box.socket, dirname(box.socket)]));
    expect(settings.sandbox.filesystem.denyWrite).toEqual(expect.arrayContaining([box.data, box.config, settingsFile]));
    const doctor = await runCli(box, ['doctor', '--json']);
    expect(JSON.parse(doctor.stdout).checks).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'claude sandbox', ok: true })]));
  });

  it(
    "stops the agent's programs at the kernel, and the way out still opens the tripped gate",
    async () => {
      writeFileSync(join(box.project, 'notes.md'), 'notes\n');
      mock.script(
        callTool('Write', { file_path: join(box.project, 'tidy.py'), content: program(daemon.child.pid!) }),
        bash('python3 tidy.py', 'tidy up'),
        // The user trips the gate; the agent must summarize.
        async () => {
          const tripped = await runCli(box, ['trip', '--reason', 'summarize before the release']);
          expect(tripped.code, tripped.stderr).toBe(0);
          return read(join(box.project, 'notes.md'));
        },
        (request) => bash(filledIn(submitCommandIn(MockAnthropic.lastToolResult(request)?.text ?? '')), 'submit the summary'),
        bash('echo ok > ran.txt', 'work again'),
        answer('Done.'),
      );
      const run = await runClaude(box.project, claudeEnv(box.env, mock), 'Tidy up the project.', mock, 'Bash,Read,Write');
      const ctx = mock.describe();
      expect(mock.turnsTaken, ctx).toBe(6);

      // The program ran, in the sandbox.
      const ran = mock.toolResult(1);
      expect(ran?.isError, ran?.text).toBe(false);
      // Nothing recap listed gets in the way of the shell itself (a missing ~/.bashrc, say).
      expect(ran?.text).not.toMatch(/denied|Read-only file system/);
      const outcome = JSON.parse(ran!.text.trim().split('\n').at(-1)!) as Record<string, Attempt>;
      // The user's allowWrite let it write their home; recap's denyWrite kept the config from it.
      expect(outcome.free, ran!.text).toEqual({ ok: true, value: null });
      expect(outcome.config, ran!.text).toMatchObject({ ok: false, error: 'PermissionError' });
      expect(readFileSync(box.config, 'utf8')).toBe(CONFIG_TEXT);
      // The data folder, log and all, is an empty folder to it.
      expect(existsSync(join(box.data, 'log'))).toBe(true);
      expect(outcome.data, ran!.text).toEqual({ ok: true, value: [] });
      // No Unix socket at all: seccomp refuses to make one.
      expect(outcome.pause, ran!.text).toMatchObject({ ok: false, errno: 1 }); // EPERM
      const status = JSON.parse((await runCli(box, ['status', '--json'])).stdout);
      expect(status.pausedUntil).toBeUndefined();
      // Its own process namespace: the daemon is not there to be signalled.
      expect(outcome.signal, ran!.text).toMatchObject({ ok: false, error: 'ProcessLookupError' });

      // The tripped gate denied the Read with the way out; the hook ran it, and it opened the gate.
      expect(mock.toolResult(2)?.text).toContain(`job ${job} needs a summary`);
      const submitted = mock.toolResult(3);
      expect(submitted?.text, ctx).toContain(RAN);
      expect(submitted?.text).toContain('Summary accepted');
      expect(JSON.parse((await runCli(box, ['status', '--json'])).stdout)).toMatchObject({ job, tripped: false, summaries: 1 });
      expect(mock.toolResult(4)?.isError, mock.toolResult(4)?.text).toBe(false);
      expect(readFileSync(join(box.project, 'ran.txt'), 'utf8')).toBe('ok\n');
      expect(run.json.result).toBe('Done.');
    },
    TEST_MS,
  );

  it("recap uninstall claude takes out recap's hooks and sandbox, and leaves the user's", async () => {
    const removed = await runCli(box, ['uninstall', 'claude', ...scoped]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(JSON.parse(readFileSync(userFile, 'utf8'))).toEqual({ model: 'opus', sandbox: { filesystem: { allowWrite: [box.dir] } } });
    if (scope === 'project') expect(JSON.parse(readFileSync(settingsFile, 'utf8'))).toEqual({});
  });
});
