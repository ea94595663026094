// Attack family: the agent rewrites its project's .recap/config.conf (by whatever means got
// the write through: redirection, sed -i, python, git checkout, a symlink, /proc/self/cwd)
// and has the daemon re-read it (kill -HUP) or restart. Nothing it writes weakens the gate
// until the user runs `recap config allow`: the next tool is still denied under the same
// rules, `recap status` says a change waits for approval, and the way out stays open.
// Stricter values apply at once. The real daemon, the real recap-hook, the real CLI.
// The user's own config file is kept the same way: a program that writes it past the agent's
// tools (python, node, git) weakens nothing until the user's `recap config allow --user`.
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { removeSandbox, runCli, sandbox, socketRequestCode, startDaemon, trackedSandboxes, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { ATTACK_THRESHOLD, expectDenied, expectWayOutOpen, payload, proveWayOut, runHook, runShell, toolCall, trippedGate, type Attack } from '../helpers/gateAttack.js';

const { newBox, start } = trackedSandboxes(afterEach);

const configFile = (a: Attack) => join(a.box.project, '.recap', 'config.conf');

/** Sends SIGHUP and waits until the daemon has logged that it re-read its files. */
async function reload(daemon: DaemonProcess): Promise<void> {
  const seen = daemon.lines.length;
  const reread = daemon.waitForLog((l) => l.msg === 'configuration re-read' && daemon.lines.indexOf(l) >= seen);
  daemon.child.kill('SIGHUP');
  await reread;
}

async function restart(a: Attack, launch: (box: Sandbox) => Promise<DaemonProcess>): Promise<void> {
  await a.daemon.stop();
  a.daemon = await launch(a.box);
}

/** Runs the attack's write as the agent's shell would, in the project. */
async function agentWrites(a: Attack, command: string): Promise<void> {
  const run = await runShell(a, command);
  expect(run.exitCode, `the write failed: ${run.stderr}`).toBe(0);
}

/**
 * A program, not the agent's tool, run in the project: the file's path is built where no
 * check of the command could see it.
 */
async function programWrites(a: Attack, program: 'python3' | 'node' | 'git', args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(program, args, { cwd: a.box.project, env: a.shellEnv });
  return stdout;
}

type Shown = { values: Record<string, unknown>; sources: Record<string, string>; problems: string[]; pending?: { held: { key: string; from: unknown; to: unknown }[] } };

async function shown(a: Attack): Promise<Shown> {
  const run = await runCli(a.box, ['config', 'show', '--json']);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Shown;
}

/** The next tool is denied under the rules in force before the attack (the default template and band). */
async function expectStillGated(a: Attack): Promise<string> {
  const reason = expectDenied(await runHook(a.box.env, toolCall(a, 'Read', { file_path: join(a.box.project, 'README.md') })));
  expect(reason).toContain('each of the 5 sections once');
  expect(reason).toContain('at least 50 tokens in each section; 200 to 1000 tokens in total');
  return reason;
}

/** The key is held at its value in force, and `recap status` says the change waits, with the command. */
async function expectHeld(a: Attack, key: string, inForce: unknown, wanted: unknown): Promise<void> {
  const now = await shown(a);
  expect(now.values[key]).toEqual(inForce);
  expect(now.pending?.held).toContainEqual({ key, from: inForce, to: wanted, direction: 'weaker' });
  const status = await runCli(a.box, ['status']);
  expect(status.stdout).toContain(`config change waits for approval: ${configFile(a)}`);
  expect(status.stdout).toContain(`${key}: in force`);
  expect(status.stdout).toContain('recap config allow');
  expect(JSON.parse((await runCli(a.box, ['status', '--json'])).stdout).threshold).toBe(now.values.TOKEN_THRESHOLD);
}

/** A file that does not parse: the last good configuration stays and status names the line. */
async function expectRefusedFile(a: Attack, key: string): Promise<void> {
  const status = await runCli(a.box, ['status']);
  expect(status.stderr).toContain(`config problem (the last good configuration is in force): ${configFile(a)}:`);
  expect(status.stderr).toContain(key);
  expect((await shown(a)).values.TOKEN_THRESHOLD).toBe(ATTACK_THRESHOLD);
}

describe('a weakening project config, re-read on SIGHUP, waits for approval', () => {
  let box: Sandbox;
  let attack: Attack;
  const started: DaemonProcess[] = [];
  const launch = async (b: Sandbox) => {
    const d = await startDaemon(b);
    started.push(d);
    return d;
  };

  beforeAll(async () => {
    box = sandbox();
    attack = await trippedGate(box, launch);
  });
  afterAll(async () => {
    await Promise.all(started.map((d) => d.stop('SIGKILL')));
    removeSandbox(box);
  });
  beforeEach(async () => {
    rmSync(join(box.project, '.recap'), { recursive: true, force: true });
    mkdirSync(join(box.project, '.recap'));
    await reload(attack.daemon);
    // A stricter value of the test before applied at once and counts as approved: the file's
    // removal weakens the gate, so the user approves it to start each test from the user's values.
    const cleared = await runCli(box, ['config', 'allow']);
    expect(cleared.code, cleared.stderr).toBe(0);
  });
  afterEach(async () => {
    await expectWayOutOpen(attack);
  });

  const held: [string, string, string, unknown, unknown][] = [
    ['the threshold raised (shell redirection)', `echo 'TOKEN_THRESHOLD=100000' > .recap/config.conf`, 'TOKEN_THRESHOLD', 300, 100000],
    ['the threshold raised (printf >>, appended)', `printf 'TOKEN_THRESHOLD=301\\n' >> .recap/config.conf`, 'TOKEN_THRESHOLD', 300, 301],
    ['the threshold raised (python -c)', `python3 -c "open('.recap/config.conf','w').write('TOKEN_THRESHOLD=\\"99999\\"\\n')"`, 'TOKEN_THRESHOLD', 300, 99999],
    ['the threshold raised through /proc/self/cwd', `echo TOKEN_THRESHOLD=5000 > /proc/self/cwd/.recap/config.conf`, 'TOKEN_THRESHOLD', 300, 5000],
    ['the threshold raised with export', `echo 'export TOKEN_THRESHOLD=5000' > .recap/config.conf`, 'TOKEN_THRESHOLD', 300, 5000],
    ['the threshold lowered, then raised on a later line', `printf 'TOKEN_THRESHOLD=100\\nTOKEN_THRESHOLD=5000\\n' > .recap/config.conf`, 'TOKEN_THRESHOLD', 300, 5000],
    ['the threshold through a ${VAR:-default} the daemon has no value for', `echo 'TOKEN_THRESHOLD="\${RECAP_NOPE:-77777}"' > .recap/config.conf`, 'TOKEN_THRESHOLD', 300, 77777],
    ['the threshold with CRLF line ends', `printf 'TOKEN_THRESHOLD=6000\\r\\n' > .recap/config.conf`, 'TOKEN_THRESHOLD', 300, 6000],
    [
      'the threshold written to a temp file and moved over it',
      `echo TOKEN_THRESHOLD=8000 > /tmp/recap-attack-$$ && mv /tmp/recap-attack-$$ .recap/config.conf`,
      'TOKEN_THRESHOLD',
      300,
      8000,
    ],
    [
      'sections removed (sed -i)',
      `echo 'REQUIRED_SECTIONS=("User Requests" "Questions & Decisions" "Design Choices" "Corrections & Feedback" "Current State")' > .recap/config.conf && sed -i 's/"User Requests".*"Corrections & Feedback" //' .recap/config.conf`,
      'REQUIRED_SECTIONS',
      ['User Requests', 'Questions & Decisions', 'Design Choices', 'Corrections & Feedback', 'Current State'],
      ['Current State'],
    ],
    [
      'sections replaced by others',
      `echo 'REQUIRED_SECTIONS=("Notes")' > .recap/config.conf`,
      'REQUIRED_SECTIONS',
      ['User Requests', 'Questions & Decisions', 'Design Choices', 'Corrections & Feedback', 'Current State'],
      ['Notes'],
    ],
    ['another profile', `echo PROFILE=research > .recap/config.conf`, 'PROFILE', 'default', 'research'],
    ['the section floor lowered', `echo MIN_TOKENS_PER_SECTION=0 > .recap/config.conf`, 'MIN_TOKENS_PER_SECTION', 50, 0],
    ['the band floor lowered', `echo SUMMARY_MIN_TOKENS=1 > .recap/config.conf`, 'SUMMARY_MIN_TOKENS', 200, 1],
    ['the band ceiling raised', `echo SUMMARY_MAX_TOKENS=1000000 > .recap/config.conf`, 'SUMMARY_MAX_TOKENS', 1000, 1000000],
    ['a bypass prefix added', `echo 'BYPASS_PREFIXES=("[x]")' > .recap/config.conf`, 'BYPASS_PREFIXES', [], ['[x]']],
    ['COUNT_KINDS emptied', `echo 'COUNT_KINDS=()' > .recap/config.conf`, 'COUNT_KINDS', ['prompt', 'qa'], []],
    ['COUNT_KINDS switched to a kind never recorded', `echo 'COUNT_KINDS=("nothing")' > .recap/config.conf`, 'COUNT_KINDS', ['prompt', 'qa'], ['nothing']],
    ['JOB_SCOPE switched to session', `echo JOB_SCOPE=session > .recap/config.conf`, 'JOB_SCOPE', 'project', 'session'],
    ['the token encoding switched to words', `echo TOKEN_ENCODING=words > .recap/config.conf`, 'TOKEN_ENCODING', 'o200k_base', 'words'],
    ['the word ratio changed', `echo TOKEN_WORD_RATIO=0.01 > .recap/config.conf`, 'TOKEN_WORD_RATIO', 1.3, 0.01],
  ];
  for (const [name, command, key, inForce, wanted] of held) {
    it(`${name}: still denied, held, status says it waits`, async () => {
      await agentWrites(attack, command);
      await reload(attack.daemon);
      await expectStillGated(attack);
      await expectHeld(attack, key, inForce, wanted);
    });
  }

  it('a bypass prefix added: a question with that prefix is still denied', async () => {
    await agentWrites(attack, `echo 'BYPASS_PREFIXES=("[x]")' > .recap/config.conf`);
    await reload(attack.daemon);
    const question = toolCall(attack, 'AskUserQuestion', { questions: [{ question: '[x] may I go on?', options: [] }] });
    expectDenied(await runHook(box.env, question));
  });

  it('JOB_SCOPE switched to session: a new session in the project is still on the tripped job', async () => {
    await agentWrites(attack, `echo JOB_SCOPE=session > .recap/config.conf`);
    await reload(attack.daemon);
    const fresh = { ...toolCall(attack, 'Read', { file_path: join(box.project, 'README.md') }), session_id: 'a-brand-new-session' };
    expectDenied(await runHook(box.env, fresh));
  });

  it('a symlink to another file with a raised threshold', async () => {
    writeFileSync(join(box.dir, 'elsewhere.conf'), 'TOKEN_THRESHOLD=50000\n');
    await agentWrites(attack, `ln -sf ${join(box.dir, 'elsewhere.conf')} .recap/config.conf`);
    await reload(attack.daemon);
    await expectStillGated(attack);
    await expectHeld(attack, 'TOKEN_THRESHOLD', 300, 50000);
  });

  it('the .recap folder swapped for a symlink to a folder of the agent', async () => {
    mkdirSync(join(box.dir, 'agent-recap'));
    writeFileSync(join(box.dir, 'agent-recap', 'config.conf'), 'MIN_TOKENS_PER_SECTION=1\n');
    await agentWrites(attack, `rm -rf .recap && ln -s ${join(box.dir, 'agent-recap')} .recap`);
    await reload(attack.daemon);
    await expectStillGated(attack);
    await expectHeld(attack, 'MIN_TOKENS_PER_SECTION', 50, 1);
  });

  it('a git checkout of a branch whose config raises the threshold', async () => {
    const git = 'git -c user.email=a@b -c user.name=agent -c init.defaultBranch=main';
    await agentWrites(
      attack,
      `${git} init -q . && ${git} checkout -q -b loose && echo TOKEN_THRESHOLD=40000 > .recap/config.conf && ` +
        `${git} add .recap/config.conf && ${git} commit -qm loose && ${git} checkout -q -b clean HEAD~0 && ` +
        `${git} rm -q .recap/config.conf && ${git} commit -qm clean && ${git} checkout -q loose`,
    );
    expect(readFileSync(configFile(attack), 'utf8')).toBe('TOKEN_THRESHOLD=40000\n');
    await reload(attack.daemon);
    await expectStillGated(attack);
    await expectHeld(attack, 'TOKEN_THRESHOLD', 300, 40000);
  });

  it('stricter and weaker values in one file: the stricter apply, the weaker wait', async () => {
    await agentWrites(attack, `printf 'TOKEN_THRESHOLD=100000\\nSECTION_MAX_TOKENS=400\\n' > .recap/config.conf`);
    await reload(attack.daemon);
    const reason = expectDenied(await runHook(box.env, toolCall(attack, 'Read', { file_path: join(box.project, 'README.md') })));
    expect(reason).toContain('at least 50 and at most 400 tokens in each section');
    await expectHeld(attack, 'TOKEN_THRESHOLD', 300, 100000);
  });

  it('a band whose stricter floor crosses the old ceiling: the whole band stays', async () => {
    await agentWrites(attack, `printf 'SUMMARY_MIN_TOKENS=2000\\nSUMMARY_MAX_TOKENS=900000\\n' > .recap/config.conf`);
    await reload(attack.daemon);
    await expectStillGated(attack);
    await expectHeld(attack, 'SUMMARY_MAX_TOKENS', 1000, 900000);
    expect((await shown(attack)).values.SUMMARY_MIN_TOKENS).toBe(200);
  });

  const refused: [string, string, string][] = [
    ['an unknown key (a switch recap does not have)', `echo SUMMARY_GROUNDING_OFF=1 > .recap/config.conf`, 'SUMMARY_GROUNDING_OFF'],
    ['a garbage value', `echo TOKEN_THRESHOLD=lots > .recap/config.conf`, 'TOKEN_THRESHOLD'],
    ['an out-of-range value', `echo TOKEN_THRESHOLD=0 > .recap/config.conf`, 'TOKEN_THRESHOLD'],
    ['a command substitution', `echo 'TOKEN_THRESHOLD=$(echo 99999)' > .recap/config.conf`, 'TOKEN_THRESHOLD'],
    ['binary junk', `printf '\\000\\377\\376garbage\\001\\n' > .recap/config.conf`, 'expected KEY=value'],
    ['every section removed', `echo 'REQUIRED_SECTIONS=()' > .recap/config.conf`, 'REQUIRED_SECTIONS'],
  ];
  for (const [name, command, key] of refused) {
    it(`${name}: refused with file and line, the last good configuration stays, still denied`, async () => {
      await agentWrites(attack, command);
      await reload(attack.daemon);
      await expectStillGated(attack);
      await expectRefusedFile(attack, key);
    });
  }

  it('an unreadable file: reported, the last good configuration stays', async () => {
    await agentWrites(attack, 'echo TOKEN_THRESHOLD=99999 > .recap/config.conf');
    chmodSync(configFile(attack), 0o000);
    await reload(attack.daemon);
    await expectStillGated(attack);
    expect((await shown(attack)).values.TOKEN_THRESHOLD).toBe(ATTACK_THRESHOLD);
    chmodSync(configFile(attack), 0o600);
  });

  it('after all of them, the way out opens the gate', async () => {
    await agentWrites(attack, `printf 'TOKEN_THRESHOLD=100000\\nCOUNT_KINDS=()\\n' > .recap/config.conf`);
    await reload(attack.daemon);
    await proveWayOut(attack);
    // Held at 300 and counting prompts, the next window trips the gate again.
    for (const prompt of ['x '.repeat(200), 'y '.repeat(200)]) {
      expect((await runHook(box.env, payload(attack, 'UserPromptSubmit', { prompt }))).exitCode).toBe(0);
    }
    await expectStillGated(attack);
  });
});

describe('values that only make the gate stricter apply at once', () => {
  it('a lower threshold applies at once, with no approval waiting', async () => {
    const attack = await trippedGate(newBox(), start);
    await agentWrites(attack, 'mkdir -p .recap && echo TOKEN_THRESHOLD=100 > .recap/config.conf');
    await reload(attack.daemon);
    expect(JSON.parse((await runCli(attack.box, ['status', '--json'])).stdout)).toMatchObject({ threshold: 100, tripped: true });
    expect((await shown(attack)).pending).toBeUndefined();
    expect((await runCli(attack.box, ['status'])).stdout).not.toContain('waits for approval');
    await expectWayOutOpen(attack);
  });

  it('a higher section floor and one more section are in the next deny', async () => {
    const attack = await trippedGate(newBox(), start);
    await agentWrites(
      attack,
      `mkdir -p .recap && printf 'MIN_TOKENS_PER_SECTION=60\\nREQUIRED_SECTIONS=("User Requests" "Questions & Decisions" "Design Choices" "Corrections & Feedback" "Current State" "Risks")\\n' > .recap/config.conf`,
    );
    await reload(attack.daemon);
    const reason = expectDenied(await runHook(attack.box.env, toolCall(attack, 'Read', { file_path: join(attack.box.project, 'README.md') })));
    expect(reason).toContain('each of the 6 sections once');
    expect(reason).toContain('at least 60 tokens in each section');
    expect(reason).toContain('## Risks');
    await expectWayOutOpen(attack);
  });

  it('ON_DAEMON_DOWN=closed in the project applies at once, in the daemon and in the hook with no daemon', async () => {
    const attack = await trippedGate(newBox(), start);
    await agentWrites(attack, 'mkdir -p .recap && echo ON_DAEMON_DOWN=closed > .recap/config.conf');
    await reload(attack.daemon);
    expect((await shown(attack)).values.ON_DAEMON_DOWN).toBe('closed');
    const reason = expectDenied(await runHook(unreachable(attack.box), toolCall(attack, 'Read', { file_path: join(attack.box.project, 'README.md') })));
    expect(reason).toContain('not reachable');
    await expectWayOutOpen(attack);
  });
});

/** The hook's environment with a daemon it can neither reach nor start. */
function unreachable(box: Sandbox): NodeJS.ProcessEnv {
  writeFileSync(join(box.dir, 'a-file'), '');
  return { ...box.env, RECAP_SOCKET: join(box.dir, 'a-file', 'recapd.sock') };
}

describe('the daemon-down policy: only the user opens it', () => {
  it("the project says ON_DAEMON_DOWN=open over the user's closed: held in the daemon, ignored by the hook with no daemon", async () => {
    const attack = await trippedGate(newBox(), start);
    writeFileSync(attack.box.config, `TOKEN_THRESHOLD=${ATTACK_THRESHOLD}\nON_DAEMON_DOWN=closed\n`);
    await agentWrites(attack, 'mkdir -p .recap && echo ON_DAEMON_DOWN=open > .recap/config.conf');
    await reload(attack.daemon);
    await expectStillGated(attack);
    await expectHeld(attack, 'ON_DAEMON_DOWN', 'closed', 'open');
    const reason = expectDenied(await runHook(unreachable(attack.box), toolCall(attack, 'Read', { file_path: join(attack.box.project, 'README.md') })));
    expect(reason).toContain('ON_DAEMON_DOWN=closed');
    await expectWayOutOpen(attack);
    await proveWayOut(attack);
  });
});

describe('a restart re-reads the file and still holds what weakens', () => {
  it('a weakening file written, then the daemon restarted (no SIGHUP)', async () => {
    const attack = await trippedGate(newBox(), start);
    await agentWrites(attack, 'mkdir -p .recap && echo TOKEN_THRESHOLD=100000 > .recap/config.conf');
    await restart(attack, start);
    await expectStillGated(attack);
    await expectHeld(attack, 'TOKEN_THRESHOLD', 300, 100000);
    await expectWayOutOpen(attack);
  });

  it('a file re-read on SIGHUP, then replaced before a restart', async () => {
    const attack = await trippedGate(newBox(), start);
    await agentWrites(attack, 'mkdir -p .recap && echo TOKEN_THRESHOLD=100 > .recap/config.conf');
    await reload(attack.daemon);
    expect((await shown(attack)).values.TOKEN_THRESHOLD).toBe(100);
    await agentWrites(attack, `printf 'TOKEN_THRESHOLD=100000\\nMIN_TOKENS_PER_SECTION=0\\n' > .recap/config.conf`);
    await restart(attack, start);
    await expectStillGated(attack);
    // The 100 that applied at once is the value in force a later weakening is held at.
    await expectHeld(attack, 'TOKEN_THRESHOLD', 100, 100000);
    await expectHeld(attack, 'MIN_TOKENS_PER_SECTION', 50, 0);
    await expectWayOutOpen(attack);
    await proveWayOut(attack);
  });

  it('a stricter file removed: its values stay until the removal is approved', async () => {
    const attack = await trippedGate(newBox(), start);
    await agentWrites(attack, 'mkdir -p .recap && echo TOKEN_THRESHOLD=100 > .recap/config.conf');
    expect((await runCli(attack.box, ['config', 'allow'])).code).toBe(0);
    await agentWrites(attack, 'rm .recap/config.conf');
    await restart(attack, start);
    await expectHeld(attack, 'TOKEN_THRESHOLD', 100, 300);
    await expectWayOutOpen(attack);
  });
});

describe('recap config allow: the user approves, the approved values apply, a later edit needs a new approval', () => {
  it('shows the diff, records ConfigApproved with the sha256 and the project, applies, and holds the next edit', async () => {
    const attack = await trippedGate(newBox(), start);
    const { box } = attack;
    await agentWrites(attack, `mkdir -p .recap && printf 'TOKEN_THRESHOLD=900\\nMIN_TOKENS_PER_SECTION=55\\n' > .recap/config.conf`);
    await reload(attack.daemon);
    await expectHeld(attack, 'TOKEN_THRESHOLD', 300, 900);

    const allowed = await runCli(box, ['config', 'allow']);
    expect(allowed.code, allowed.stderr).toBe(0);
    const hash = createHash('sha256')
      .update(readFileSync(configFile(attack)))
      .digest('hex');
    expect(allowed.stdout).toContain(`approved ${configFile(attack)} (sha256 ${hash.slice(0, 12)})`);
    expect(allowed.stdout).toContain('TOKEN_THRESHOLD: 300 -> 900 (weakens the gate)');
    const log = (await runCli(box, ['log', '--json', '--type', 'ConfigApproved'])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    // The user's file first seen; the stricter 55 applied at once; then the user's approval of the whole file.
    expect(log.map((e) => [e.data.project, e.data.by])).toEqual([
      [undefined, 'firstSeen'],
      [box.project, 'stricter'],
      [box.project, 'allow'],
    ]);
    expect(log[2]).toMatchObject({
      type: 'ConfigApproved',
      version: 2,
      data: { project: box.project, file: configFile(attack), hash, values: { TOKEN_THRESHOLD: 900, MIN_TOKENS_PER_SECTION: 55 }, by: 'allow' },
    });
    expect(JSON.parse((await runCli(box, ['status', '--json'])).stdout)).toMatchObject({ threshold: 900 });
    expect((await runCli(box, ['status'])).stdout).not.toContain('waits for approval');
    expect((await runCli(box, ['config', 'allow'])).stdout).toContain('is already approved; nothing changed');

    // The approval is in the log: a restart keeps it.
    await restart(attack, start);
    expect((await shown(attack)).values.TOKEN_THRESHOLD).toBe(900);

    await agentWrites(attack, `sed -i 's/900/5000/' .recap/config.conf`);
    await reload(attack.daemon);
    await expectHeld(attack, 'TOKEN_THRESHOLD', 900, 5000);
    await expectWayOutOpen(attack);
    await proveWayOut(attack);
  });

  it("refuses the agent's own shell (its session variable set): nothing is approved", async () => {
    const attack = await trippedGate(newBox(), start);
    await agentWrites(attack, 'mkdir -p .recap && echo TOKEN_THRESHOLD=100000 > .recap/config.conf');
    await reload(attack.daemon);
    const run = await runShell(attack, 'recap config allow');
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(
      /recap config allow is the user's to run, from their own terminal, and it came from process .+, which is an agent's \(CLAUDE_CODE_SESSION_ID is set for .+\): run it in your own terminal/,
    );
    await expectStillGated(attack);
    await expectHeld(attack, 'TOKEN_THRESHOLD', 300, 100000);
    await expectWayOutOpen(attack);
  });

  it('refuses an invalid file, naming file, line and key (exit 1)', async () => {
    const attack = await trippedGate(newBox(), start);
    await agentWrites(attack, 'mkdir -p .recap && printf "# mine\\nTOKEN_THRESHOLD=lots\\n" > .recap/config.conf');
    const allowed = await runCli(attack.box, ['config', 'allow']);
    expect(allowed.code).toBe(1);
    expect(allowed.stderr).toContain(`${configFile(attack)}:2: TOKEN_THRESHOLD: must be a whole number`);
    expect(allowed.stderr).toContain('then run recap config allow again');
    await expectStillGated(attack);
    await expectWayOutOpen(attack);
  });

  it('a symlinked file approved, then its target changed: the change waits again', async () => {
    const attack = await trippedGate(newBox(), start);
    const target = join(attack.box.dir, 'shared.conf');
    writeFileSync(target, 'TOKEN_THRESHOLD=800\n');
    await agentWrites(attack, `mkdir -p .recap && ln -s ${target} .recap/config.conf`);
    expect((await runCli(attack.box, ['config', 'allow'])).code).toBe(0);
    expect((await shown(attack)).values.TOKEN_THRESHOLD).toBe(800);
    writeFileSync(target, 'TOKEN_THRESHOLD=80000\n');
    await reload(attack.daemon);
    await expectHeld(attack, 'TOKEN_THRESHOLD', 800, 80000);
    await expectWayOutOpen(attack);
  });

  it('recap doctor says a change waits, with the command', async () => {
    const attack = await trippedGate(newBox(), start);
    await agentWrites(attack, 'mkdir -p .recap && echo TOKEN_THRESHOLD=7000 > .recap/config.conf');
    await reload(attack.daemon);
    const doctor = await runCli(attack.box, ['doctor']);
    expect(doctor.stdout).toMatch(/FAIL\s+config approval\s+.*config\.conf waits for approval: TOKEN_THRESHOLD=7000 \(in force: 300\)/);
    expect(doctor.stdout).toContain('fix: read the change, then run yourself: recap config allow');
    await expectWayOutOpen(attack);
  });
});

describe('recap config check and show', () => {
  it('check names file:line: key: reason and exits 1; a good file exits 0', async () => {
    const box = newBox();
    const bad = join(box.dir, 'bad.conf');
    writeFileSync(bad, '# x\nTOKEN_THRESHOLD=lots\nTOKEN_TRESHOLD=5\n');
    const failed = await runCli(box, ['config', 'check', bad]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(`${bad}:2: TOKEN_THRESHOLD: must be a whole number, 1 or more; got "lots"`);
    expect(failed.stderr).toContain(`${bad}:3: TOKEN_TRESHOLD: unknown key`);
    const good = join(box.dir, 'good.conf');
    writeFileSync(good, 'TOKEN_THRESHOLD=100\n');
    const passed = await runCli(box, ['config', 'check', good]);
    expect(passed.code, passed.stderr).toBe(0);
    expect(passed.stdout).toContain(`ok: ${good}`);
  });

  it('check reports every problem of a file in one round, with the values each key allows, and applies nothing', async () => {
    const box = newBox();
    writeFileSync(box.config, 'TOKEN_THRESHOLD=321\n');
    await start(box);
    const bad = join(box.dir, 'bad.conf');
    writeFileSync(bad, 'TOKEN_THRESHOLD=0\nJOB_SCOPE=team\nSUMMARY_MIN_TOKENS=900\nSUMMARY_MAX_TOKENS=300\nTOKEN_ENCODING=bogus\n');
    const failed = await runCli(box, ['config', 'check', bad, '--json']);
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.stdout).problems).toEqual([
      `${bad}:1: TOKEN_THRESHOLD: must be a whole number, 1 or more; got 0`,
      `${bad}:2: JOB_SCOPE: must be one of project, session; got "team"`,
      `${bad}:5: TOKEN_ENCODING: must be one of o200k_base, cl100k_base, words; got "bogus"`,
      `${bad}:3: SUMMARY_MIN_TOKENS: SUMMARY_MIN_TOKENS (900) must not exceed SUMMARY_MAX_TOKENS (300)`,
    ]);
    // The daemon's configuration is the user's file, as before the check.
    const status = await runCli(box, ['status', '--json']);
    expect(JSON.parse(status.stdout).threshold).toBe(321);
  });

  it('show gives each value with its source', async () => {
    const box = newBox();
    writeFileSync(box.config, 'TOKEN_THRESHOLD=321\n');
    await start(box);
    const run = await runCli(box, ['config', 'show']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`TOKEN_THRESHOLD=321\\s+${box.config.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:1`));
    expect(run.stdout).toMatch(/SUMMARY_MIN_TOKENS=200\s+default/);
    const allow = await runCli(box, ['config', 'allow']);
    expect(allow.code, allow.stderr).toBe(0);
    expect(allow.stdout).toContain(`there is no ${join(box.project, '.recap', 'config.conf')}; nothing to approve`);
  });
});

describe("a program (not the agent's tool) writes recap's config files: nothing weakens until the user approves", () => {
  it("(a) the project's file weakened by python after a stricter value applied at once: that stricter value stays in force", async () => {
    const attack = await trippedGate(newBox(), start);
    await programWrites(attack, 'node', [
      '-e',
      "require('fs').mkdirSync('.re' + 'cap', { recursive: true }); require('fs').writeFileSync('.re' + 'cap/con' + 'fig.conf', 'TOKEN_THRESHOLD=200\\n')",
    ]);
    await reload(attack.daemon);
    expect(JSON.parse((await runCli(attack.box, ['status', '--json'])).stdout)).toMatchObject({ threshold: 200, tripped: true });
    expect((await shown(attack)).pending).toBeUndefined();

    await programWrites(attack, 'python3', ['-c', "p = '.re' + 'cap/' + 'con' + 'fig.conf'\nopen(p, 'w').write('TOKEN_THRESHOLD=100000\\n')"]);
    expect(readFileSync(configFile(attack), 'utf8')).toBe('TOKEN_THRESHOLD=100000\n');
    await reload(attack.daemon);
    await expectStillGated(attack);
    // Not the user's 300: the 200 that applied at once is what the weakening is compared with.
    await expectHeld(attack, 'TOKEN_THRESHOLD', 200, 100000);
    await restart(attack, start);
    await expectHeld(attack, 'TOKEN_THRESHOLD', 200, 100000);
    await expectWayOutOpen(attack);
    await proveWayOut(attack);
  });

  it("(b) the user's file raised to 1,000,000 by python, then reload by a plain socket request and a restart: the approved threshold stays, and status, doctor and a notice say a change waits", async () => {
    const attack = await trippedGate(newBox(), start);
    const { box } = attack;
    await programWrites(attack, 'python3', ['-c', "import os\nopen(os.environ['RECAP_' + 'CONFIG'], 'w').write('TOKEN_THRESHOLD=1000000\\n')"]);
    expect(readFileSync(box.config, 'utf8')).toBe('TOKEN_THRESHOLD=1000000\n');

    // The program's own reload is refused (it is not the user's); the user's reload re-reads and holds the weakening.
    const answer = JSON.parse(await programWrites(attack, 'node', ['-e', socketRequestCode({ id: 1, op: 'reload' })])) as { error?: { code: string } };
    expect(answer.error?.code).toBe('refused');
    const reloaded = await runCli(box, ['reload']);
    expect(reloaded.stdout + reloaded.stderr).toContain('TOKEN_THRESHOLD');
    // The user hears of it in the agent's own UI, on the next call, once.
    const told = await runHook(box.env, toolCall(attack, 'Read', { file_path: join(box.project, 'README.md') }));
    expectDenied(told);
    expect(told.stdout).toContain(`recap: ${box.config} would weaken the gate (TOKEN_THRESHOLD 300 -> 1000000)`);
    expect(told.stdout).toContain('recap config allow --user yourself');
    await expectStillGated(attack);
    expect((await runHook(box.env, toolCall(attack, 'Read', { file_path: join(box.project, 'README.md') }))).stdout).not.toContain('would weaken the gate');

    await restart(attack, start);
    await expectStillGated(attack);
    const status = JSON.parse((await runCli(box, ['status', '--json'])).stdout);
    expect(status).toMatchObject({
      threshold: 300,
      tripped: true,
      userConfigPending: { file: box.config, held: [{ key: 'TOKEN_THRESHOLD', from: 300, to: 1_000_000 }], command: 'recap config allow --user' },
    });
    const human = (await runCli(box, ['status'])).stdout;
    expect(human).toContain(`config change waits for approval: ${box.config}`);
    expect(human).toContain('TOKEN_THRESHOLD: in force 300, the file asks for 1000000');
    expect(human).toContain('recap config allow --user');
    const doctor = (await runCli(box, ['doctor'])).stdout;
    expect(doctor).toMatch(/FAIL\s+config approval\s+.*config\.conf waits for approval: TOKEN_THRESHOLD=1000000 \(in force: 300\)/);
    expect(doctor).toContain('fix: read the change, then run yourself: recap config allow --user');
    // Told once: the restart found the same content held, and says nothing new.
    expect((await runHook(box.env, toolCall(attack, 'Read', { file_path: join(box.project, 'README.md') }))).stdout).not.toContain('would weaken the gate');

    await expectWayOutOpen(attack);
    await proveWayOut(attack);
    // Held at 300, the next window trips the gate again.
    for (const prompt of ['x '.repeat(200), 'y '.repeat(200)]) expect((await runHook(box.env, payload(attack, 'UserPromptSubmit', { prompt }))).exitCode).toBe(0);
    await expectStillGated(attack);
    await expectWayOutOpen(attack);
  });

  it("(c) git checkout of an older commit's .recap/config.conf: the weakening waits; the user's recap config allow applies it", async () => {
    const attack = await trippedGate(newBox(), start);
    const { box } = attack;
    rmSync(join(box.project, '.git'), { recursive: true, force: true });
    const git = ['-c', 'user.email=u@example.com', '-c', 'user.name=user', '-c', 'init.defaultBranch=main'];
    await programWrites(attack, 'git', [...git, 'init', '-q', '.']);
    mkdirSync(join(box.project, '.recap'));
    writeFileSync(configFile(attack), 'TOKEN_THRESHOLD=100000\n');
    await programWrites(attack, 'git', [...git, 'add', '.recap/config.conf']);
    await programWrites(attack, 'git', [...git, 'commit', '-qm', 'loose']);
    writeFileSync(configFile(attack), 'TOKEN_THRESHOLD=200\n');
    await programWrites(attack, 'git', [...git, 'commit', '-qam', 'strict']);
    await reload(attack.daemon);
    expect((await shown(attack)).values.TOKEN_THRESHOLD).toBe(200);

    await programWrites(attack, 'git', [...git, 'checkout', 'HEAD~1', '--', '.recap/config.conf']);
    expect(readFileSync(configFile(attack), 'utf8')).toBe('TOKEN_THRESHOLD=100000\n');
    await reload(attack.daemon);
    await expectStillGated(attack);
    await expectHeld(attack, 'TOKEN_THRESHOLD', 200, 100000);
    await expectWayOutOpen(attack);

    const allowed = await runCli(box, ['config', 'allow']);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stdout).toContain('TOKEN_THRESHOLD: 200 -> 100000 (weakens the gate)');
    expect(JSON.parse((await runCli(box, ['status', '--json'])).stdout)).toMatchObject({ threshold: 100000, tripped: true });
    expect((await runCli(box, ['status'])).stdout).not.toContain('waits for approval');
    // Approving a threshold does not open a tripped gate: the summary is still owed.
    await expectWayOutOpen(attack);
    await proveWayOut(attack);
  });
});
