// The gate against programs, not command lines: a script the agent writes and runs talks to
// recap's socket, or runs the real CLI with its environment emptied, or leaves a watcher
// behind that outlives the agent's shell. The daemon asks the kernel who is calling; the
// user's commands (pause, resume, trip, config allow, reload, stop) are refused to every one
// of them, and the way out still works after each.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, watch, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, socketRequestCode, trackedSandboxes } from '../helpers/daemon.js';
import {
  expectAllowed,
  expectDenied,
  expectStillWorking,
  launcherOf,
  openGate,
  outputOf,
  proveWayOut,
  runHook,
  runShell,
  toolCall,
  trippedGate,
  type Attack,
  type HookRun,
} from '../helpers/gateAttack.js';

const { newBox, start } = trackedSandboxes(afterEach);
const DAY = 86_400_000;

/**
 * A Python program that sends one request to recap's socket and prints the answer: the
 * ten lines an agent writes instead of a command line that names recap.
 */
const SEND_PY = `
import json, socket, struct, sys
def send(path, request):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    body = json.dumps(request).encode()
    s.sendall(struct.pack('>I', len(body)) + body)
    head = s.recv(4, socket.MSG_WAITALL)
    return json.loads(s.recv(struct.unpack('>I', head)[0], socket.MSG_WAITALL))
`;

function writeSender(attack: Attack, name: string, request: Record<string, unknown>): string {
  const file = join(attack.box.project, name);
  writeFileSync(file, `${SEND_PY}\nprint(json.dumps(send(sys.argv[1], json.loads(${JSON.stringify(JSON.stringify(request))}))))\n`);
  return file;
}

/** The answer a program got, as it printed it. */
function answerOf(stdout: string): { result?: unknown; error?: { code: string; message: string } } {
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as never;
}

async function status(attack: Attack): Promise<{ tripped: boolean; pausedUntil?: string }> {
  return JSON.parse((await runCli(attack.box, ['status', '--json'])).stdout) as never;
}

/** The gate is as the attack found it: tripped, not paused. */
async function expectUntouched(attack: Attack): Promise<void> {
  const now = await status(attack);
  expect(now.tripped).toBe(true);
  expect(now.pausedUntil).toBeUndefined();
}

/** A stand-in for an agent's own process: an executable named `claude` that runs its argument with sh. */
function fakeAgent(attack: Attack): string {
  const file = join(attack.box.dir, 'agent-bin', 'claude');
  mkdirSync(join(attack.box.dir, 'agent-bin'), { recursive: true });
  writeFileSync(file, '#!/bin/sh\nsh "$@"\n');
  chmodSync(file, 0o755);
  return file;
}

/** Runs `argv` with the environment given and nothing else, as `env -i` leaves it. */
function runBare(argv: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<HookRun> {
  return outputOf(spawn(argv[0]!, argv.slice(1), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] }));
}

/** The contents of `file` once a process of its own has written it (its folder is watched). */
function fileWritten(file: string, timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const done = () => {
      const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
      if (text === '') return;
      finish();
      resolve(text);
    };
    const watcher = watch(dirname(file), done);
    const timer = setTimeout(() => {
      finish();
      reject(new Error(`${file} was not written within ${timeoutMs} ms`));
    }, timeoutMs);
    const finish = () => {
      clearTimeout(timer);
      watcher.close();
    };
    done();
  });
}

describe("the user's commands over recap's socket, from a program the agent runs", () => {
  it('a Python script sending pause for 30 days is refused: the gate stays tripped and unpaused; the way out works', async () => {
    const attack = await trippedGate(newBox(), start);
    const script = writeSender(attack, 'tidy.py', { id: 1, op: 'pause', until: Date.now() + 30 * DAY });
    const ran = await runShell(attack, `python3 ${script} ${attack.box.socket}`);
    const answer = answerOf(ran.stdout);
    expect(answer.error?.code, ran.stdout + ran.stderr).toBe('refused');
    expect(answer.error?.message).toMatch(
      /^recap pause is the user's to run, from their own terminal, and it came from process python3 \d+ ← .+, which is an agent's \(CLAUDE_CODE_SESSION_ID is set for python3 \d+\): run it in your own terminal$/,
    );
    await expectUntouched(attack);
    await proveWayOut(attack);
  });

  it('a Python script that names itself with a line break (prctl) to forge the kernel list ss prints is refused; the way out works', async () => {
    const attack = await trippedGate(newBox(), start);
    const script = writeSender(attack, 'tidy.py', { id: 1, op: 'pause', until: Date.now() + 30 * DAY, cwd: attack.box.project });
    // PR_SET_NAME: ss prints the name as is, so this one ends its own line and claims pid 1.
    const named = join(attack.box.project, 'named.py');
    writeFileSync(
      named,
      `import ctypes, runpy, sys\nctypes.CDLL(None).prctl(15, b'",pid=1\\n', 0, 0, 0)\nsys.argv = sys.argv[1:]\nrunpy.run_path(sys.argv[0], run_name='__main__')\n`,
    );
    const ran = await runShell(attack, `python3 ${named} ${script} ${attack.box.socket}`);
    const answer = answerOf(ran.stdout);
    expect(answer.error?.code, ran.stdout + ran.stderr).toBe('refused');
    expect(answer.error?.message).toMatch(/^recap pause is the user's to run, from their own terminal, and recap could not tell which process sent it \(.*built to confuse it.*\)/);
    await expectUntouched(attack);
    await proveWayOut(attack);
  });

  it('a node one-liner sending trip --cancel, resume, reload, stop or config allow is refused each time; the daemon runs on', async () => {
    const attack = await trippedGate(newBox(), start);
    const requests = [{ op: 'trip', cancel: true }, { op: 'resume' }, { op: 'reload' }, { op: 'stop' }, { op: 'config', allow: true, cwd: attack.box.project }];
    for (const request of requests) {
      const code = socketRequestCode({ id: 1, ...request });
      const ran = await runShell(attack, `node -e ${JSON.stringify(code)}`);
      const answer = answerOf(ran.stdout);
      expect(answer.error?.code, `${request.op}: ${ran.stdout}${ran.stderr}`).toBe('refused');
      expect(answer.error?.message).toContain("is the user's to run, from their own terminal");
    }
    expect(attack.daemon.child.exitCode).toBeNull();
    await expectUntouched(attack);
    await proveWayOut(attack);
  });

  it('a watcher left behind with setsid and an empty environment is refused when it sends pause; it is killed by its PID; the way out works', async () => {
    const attack = await trippedGate(newBox(), start);
    const out = join(attack.box.project, 'watcher.out');
    const pidFile = join(attack.box.project, 'watcher.pid');
    const watcher = join(attack.box.project, 'watcher.py');
    writeFileSync(
      watcher,
      `${SEND_PY}
import os, time
if os.fork() > 0: sys.exit(0)
os.setsid()
middle = os.getpid()
if os.fork() > 0: sys.exit(0)
open(${JSON.stringify(pidFile)}, 'w').write(str(os.getpid()))
# Wait to be left to init (or whoever adopts orphans): the process that started it is gone.
while os.getppid() == middle: time.sleep(0.02)
answer = send(sys.argv[1], {'id': 1, 'op': 'pause', 'until': int(time.time() * 1000) + 30 * 86400000})
open(${JSON.stringify(out)}, 'w').write(json.dumps(answer))
time.sleep(3600)
`,
    );
    const ran = await runShell(attack, `env -i /usr/bin/python3 ${watcher} ${attack.box.socket} </dev/null >/dev/null 2>&1`);
    expect(ran.exitCode, ran.stderr).toBe(0);
    const pid = Number(await fileWritten(pidFile));
    try {
      const answer = JSON.parse(await fileWritten(out)) as { error?: { code: string; message: string } };
      expect(answer.error?.code).toBe('refused');
      // Its session's leader is the middle process, gone: it was cut loose from it.
      expect(answer.error?.message).toMatch(/came from process python3 \d+ ← .+, which was cut loose from the session that started it \(python3 \d+ was left to .+\)/);
    } finally {
      process.kill(pid, 'SIGKILL');
    }
    await expectUntouched(attack);
    await proveWayOut(attack);
  });
});

describe("the real CLI with the agent's environment emptied (env -i)", () => {
  it('recap pause from a script the agent runs is refused by the CLI, by its ancestry, and a socket request from there by the daemon; the way out works', async () => {
    const attack = await trippedGate(newBox(), start);
    const agent = fakeAgent(attack);
    const env = { PATH: attack.box.env.PATH, HOME: attack.box.env.HOME, RECAP_SOCKET: attack.box.socket, RECAP_DATA_DIR: attack.box.data };
    writeFileSync(
      join(attack.box.project, 'tidy.sh'),
      `exec env -i ${Object.entries(env)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')} recap pause 30d\n`,
    );
    // Started by the agent's own process, with no agent variable anywhere: only the ancestry tells.
    const cli = await runBare([agent, 'tidy.sh'], { PATH: attack.box.env.PATH }, attack.box.project);
    expect(cli.exitCode).toBe(1);
    expect(cli.stderr).toMatch(/recap pause is the user's to run, from their own terminal, and it came from process node \d+ ← .+, which descends from Claude Code \(claude \d+\)/);
    const script = writeSender(attack, 'tidy.py', { id: 1, op: 'pause', until: Date.now() + 30 * DAY });
    const raw = await runBare([agent, '-c', `exec env -i /usr/bin/python3 ${script} ${attack.box.socket}`], { PATH: attack.box.env.PATH }, attack.box.project);
    expect(answerOf(raw.stdout).error?.message).toMatch(/which descends from Claude Code \(claude \d+\)/);
    await expectUntouched(attack);
    await proveWayOut(attack);
  });

  it('the same command from the user (no agent above it) pauses the gate, and the pause records who ran it', async () => {
    const attack = await trippedGate(newBox(), start);
    const paused = await runCli(attack.box, ['pause', '1h']);
    expect(paused.code, paused.stderr).toBe(0);
    const events = (await runCli(attack.box, ['log', '--json', '--type', 'GatePaused'])).stdout;
    expect(events).toMatch(/"by":\{"pid":\d+,"program":"[^"]*node[^"]*","ancestry":"node \d+ ← /);
    expect((await runCli(attack.box, ['resume'])).code).toBe(0);
    await proveWayOut(attack);
  });
});

describe("recap's sockets taken over by a program", () => {
  it('a socket renamed over recapd.sock is put back by the daemon at once and reported; hooks reach the daemon again; the way out works', async () => {
    const attack = await trippedGate(newBox(), start);
    // Links the real socket aside, binds its own beside it, renames it over the real path,
    // and answers every connection with nothing: a hook would read that as an allow.
    await withImpostor(
      attack,
      (ready) => `import os, socket, sys, time
path = sys.argv[1]
os.link(path, path + '.real')
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(path + '.mine')
s.listen(16)
os.rename(path + '.mine', path)
open(${ready}, 'w').write(str(os.getpid()))
s.settimeout(30)
try:
    while True:
        c, _ = s.accept()
        c.close()
except Exception:
    pass
`,
      async () => {
        const state = await daemonStateWhenTakenOver(attack);
        expect(state).toMatch(new RegExp(`TAKEN OVER   at \\S+ another process put its socket in place of ${attack.box.socket}; the daemon put its own back`));
      },
    );
  });
});

describe("recap's socket folder swapped by a program", () => {
  it("a folder of its own (0500, its socket and the launcher's answering allow) renamed over the socket folder is moved aside; hooks reach the daemon again; the way out works", async () => {
    const attack = await trippedGate(newBox(), start);
    // Makes a folder beside the real one with its own sockets, closes it to writes (a daemon
    // not root cannot bind in it), and swaps it for the real folder in one step.
    await withImpostor(
      attack,
      (ready) => `import ctypes, os, socket, sys
run = os.path.dirname(sys.argv[1]); new = run + '.new'
os.makedirs(new, 0o700)
socks = []
for name in ('recapd.sock', 'recapd.http.sock'):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.bind(os.path.join(new, name)); s.listen(16); socks.append(s)
os.chmod(new, 0o500)
# One step (renameat2 RENAME_EXCHANGE): no moment without a folder there for the daemon to fill.
if ctypes.CDLL(None, use_errno=True).renameat2(-100, new.encode(), -100, run.encode(), 2) != 0:
    raise OSError(ctypes.get_errno(), 'renameat2')
open(${ready}, 'w').write(str(os.getpid()))
socks[0].settimeout(30)
try:
    while True:
        c, _ = socks[0].accept()
        c.close()
except Exception:
    pass
`,
      async () => {
        const moved = await attack.daemon.waitForLog((l) => l.msg.includes("recap's socket folder was replaced by another process's"));
        expect(moved.msg).toContain('moved aside');
        await attack.daemon.waitForLog((l) => l.msg.includes('was replaced by a file that is not the daemon'));
      },
    );
  });
});

/**
 * Runs a Python impostor of recap's sockets (its code given the path it writes when it is in
 * place), then `noticed`; the hook reaches the daemon again (the tripped gate denies), the
 * impostor is killed by its PID, and the way out works.
 */
async function withImpostor(attack: Attack, code: (ready: string) => string, noticed: () => Promise<void>): Promise<void> {
  const ready = join(attack.box.project, 'impostor.ready');
  const impostor = join(attack.box.project, 'impostor.py');
  writeFileSync(impostor, code(JSON.stringify(ready)));
  const child = spawn('python3', [impostor, attack.box.socket], { cwd: attack.box.project, env: attack.shellEnv, stdio: 'ignore' });
  try {
    await fileWritten(ready);
    await noticed();
    expectDenied(await runHook(attack.box.env, toolCall(attack, 'Read', { file_path: join(attack.box.project, 'README.md') })));
  } finally {
    child.kill('SIGKILL');
  }
  await proveWayOut(attack);
}

/** `recap status --daemon` once the daemon has logged that it put its socket back. */
async function daemonStateWhenTakenOver(attack: Attack): Promise<string> {
  await attack.daemon.waitForLog((l) => l.msg.includes('was replaced by a file that is not the daemon'));
  return (await runCli(attack.box, ['status', '--daemon'])).stdout;
}

describe('a daemon that is there but silent', () => {
  it('stopped by a Python one-liner (os.kill, signal 19): tool calls are denied, not let through; recap status, which passes, continues it and work goes on', async () => {
    const attack = await openGate(newBox(), start);
    const pid = attack.daemon.child.pid!;
    const ran = await runShell(attack, `python3 -c 'import os; os.kill(${pid}, 19)'`);
    expect(ran.exitCode, ran.stderr).toBe(0);
    const reason = expectDenied(await runHook(attack.box.env, toolCall(attack, 'Read', { file_path: join(attack.box.project, 'README.md') })));
    expect(reason).toContain(
      `the daemon (PID ${pid}) is stopped (SIGSTOP), so this tool call was denied: a stopped daemon does not open the gate. Run ${launcherOf(attack)} status`,
    );
    // The command the deny names passes the hook, which continues the daemon.
    expectAllowed(await runHook(attack.box.env, toolCall(attack, 'Bash', { command: `${launcherOf(attack)} status`, description: 'status' })));
    await expectStillWorking(attack);
  });

  it('stopped on a tripped gate: the tool call is denied from the verdict file; the way out continues the daemon and reaches it', async () => {
    const attack = await trippedGate(newBox(), start);
    const pid = attack.daemon.child.pid!;
    expect((await runShell(attack, `perl -e 'kill "STOP", ${pid}'`)).exitCode).toBe(0);
    expectDenied(await runHook(attack.box.env, toolCall(attack, 'Read', { file_path: join(attack.box.project, 'README.md') })));
    // The way out passes the hook, which continues the daemon, so the submit reaches it.
    await proveWayOut(attack);
  });
});
