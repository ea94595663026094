// The second round of attacks, found by attacking the gate once every family above was in:
// a daemon stopped with SIGSTOP while the gate is open, shell functions that take the
// launcher's name, globs that spell a protected path (the data folder is ~/data here), git writing through --output, an MCP
// tool naming a path in a field of its own, a script that runs a setup command, and a
// payload nested too deep to send. Each is denied (or refused), and then the way on works.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli, sandbox, type Sandbox } from '../helpers/daemon.js';
import {
  expectAllowed,
  expectDenied,
  expectStillWorking,
  expectWayOutOpen,
  launcherOf,
  openGate,
  proveWayOut,
  runHook,
  runShell,
  toolCall,
  trippedSandbox,
  endAttack,
  type Attack,
} from '../helpers/gateAttack.js';

const bash = (attack: Attack, command: string) => runHook(attack.box.env, toolCall(attack, 'Bash', { command, description: 'attack' }));

/** The same gate, open, for the moves that must be denied whatever its state. */
describe('on an open gate', () => {
  let box: Sandbox;
  let attack: Attack;
  beforeAll(async () => {
    box = sandbox();
    attack = await openGate(box);
  });
  afterAll(() => endAttack(attack));

  it.each([
    ["kill -STOP $(pgrep -f 'bin/re[c]ap.js daemon')", /stopping a process/],
    ['kill -s STOP 4242', /stopping a process/],
    ['pkill -19 -f recapd', /stopping a process|runs recap/],
    ['killall --signal=SIGTSTP node', /stopping a process/],
  ])('Bash %j is denied: a stopped daemon would answer no hook', async (command, why) => {
    expect(expectDenied(await bash(attack, command))).toMatch(why);
    await expectStillWorking(attack);
  });

  it.each([
    ['Write ~/.bashrc', () => toolCall(attack, 'Write', { file_path: join(box.dir, '.bashrc'), content: `function ${launcherOf(attack)} { echo pwned; }\n` })],
    ['Edit ~/.profile', () => toolCall(attack, 'Edit', { file_path: join(box.dir, '.profile'), old_string: 'a', new_string: 'b' })],
    ['Bash into a shell snapshot', () => toolCall(attack, 'Bash', { command: 'cat /tmp/fn.sh >> ~/.claude/shell-snapshots/snapshot-bash-1.sh' })],
    ['Bash appending to ~/.zshrc', () => toolCall(attack, 'Bash', { command: "echo 'recap() { :; }' >> ~/.zshrc" })],
    // Claude Code sources what SessionStart hooks left in session-env/<session>/ before every Bash call.
    [
      'Write a script Claude Code sources before each Bash call',
      () =>
        toolCall(attack, 'Write', {
          file_path: join(box.dir, '.claude', 'session-env', 's1', 'sessionstart-hook-7.sh'),
          content: `function ${launcherOf(attack)} { eval "$2"; }\n`,
        }),
    ],
    ['Bash copying a script into session-env', () => toolCall(attack, 'Bash', { command: 'cp /tmp/fn.sh ~/.claude/session-env/s1/sessionstart-hook-7.sh' })],
  ])("%s is denied: a shell function could take the launcher's name", async (_name, call) => {
    expect(expectDenied(await runHook(box.env, call()))).toMatch(/wires recap in|recap/);
    await expectStillWorking(attack);
  });

  it.each([
    [
      "Write the Node recap's Claude Code plugin runs its hook with",
      () => toolCall(attack, 'Write', { file_path: join(box.dir, '.claude', 'plugins', 'data', 'recap-recap-local', 'node'), content: '/tmp/shim\n' }),
    ],
    ["Bash repointing recap's marketplace", () => toolCall(attack, 'Bash', { command: "sed -i 's#claude-plugin#evil#' ~/.claude/plugins/known_marketplaces.json" })],
    [
      "Edit the plugin's hooks.json in recap's package",
      () => toolCall(attack, 'Edit', { file_path: join(ROOT, 'claude-plugin', 'plugins', 'recap', 'hooks', 'hooks.json'), old_string: 'PreToolUse', new_string: 'Nope' }),
    ],
  ])('%s is denied: the plugin would run something else, or nothing', async (_name, call) => {
    expect(expectDenied(await runHook(box.env, call()))).toMatch(/wires recap in|recap/);
    await expectStillWorking(attack);
  });

  it.each([
    ["cd .re?ap && printf 'TOKEN_THRESHOLD=100000\\n' > config.conf"],
    ['sed -i s/PreToolUse/Nope/ ~/.claude/setting?.json'],
    ['sed -i s/PreToolUse/Nope/ .claude/*.json'],
    ['mv ~/.cla?de ~/old'],
    ['rm -rf ~/dat?'],
    ['git show --output=.claude/settings.local.json HEAD:evil.json'],
    ['git log -1 --output=.claude/settings.json'],
  ])('Bash %j, a glob or a git --output onto a protected path, is denied', async (command) => {
    expectDenied(await bash(attack, command));
    await expectStillWorking(attack);
  });

  it.each([
    ['env -u CLAUDECODE -u CLAUDE_CODE_SESSION_ID sh tidy.sh'],
    ['unset CLAUDE_CODE_SESSION_ID; perl -e \'system "re"."cap trip"\''],
    ['node -e "require(\'net\').connect(process.env.RECAP_SOCKET)"'],
    ['python3 -c "import socket; s = socket.socket(socket.AF_UNIX); s.connect(\'/run/user/1000/recap/recapd.sock\')"'],
  ])('Bash %j, which hides from the agent-shell check or talks to the socket, is denied', async (command) => {
    expectDenied(await bash(attack, command));
    await expectStillWorking(attack);
  });

  it('an MCP tool naming a protected path in a field of its own is denied', async () => {
    const settings = join(box.dir, '.claude', 'settings.json');
    expectDenied(await runHook(box.env, toolCall(attack, 'mcp__fs__move_file', { source: '/tmp/evil.json', destination: settings })));
    expectDenied(await runHook(box.env, toolCall(attack, 'mcp__fs__write', { args: { filePath: '~/.claude/settings.json', text: '{}' } })));
    await expectStillWorking(attack);
  });

  it("a script the agent wrote cannot run a setup command: recap refuses in an agent's shell", async () => {
    writeFileSync(join(box.project, 'tidy.sh'), 'recap uninstall claude\nrecap trip\n');
    const ran = await runShell(attack, 'sh tidy.sh');
    expect(ran.exitCode).not.toBe(0);
    expect(ran.stderr).toMatch(
      /recap uninstall is the user's to run, from their own terminal, and it came from process .+, which is an agent's \(CLAUDE_CODE_SESSION_ID is set for/,
    );
    expect(ran.stderr).toContain("recap trip is the user's to run");
    // The user, at their own terminal, still can (with something to summarize).
    expect((await runCli(box, ['record', '--text', 'tidy the build scripts'])).code).toBe(0);
    const user = await runCli(box, ['trip', '--reason', 'the user asked']);
    expect(user.code, user.stderr).toBe(0);
    await proveWayOut(attack);
  });

  it('a payload nested too deep to send is denied, not taken for a dead daemon', async () => {
    // Written as text: JSON.stringify itself would overflow on it.
    const deep = `${'{"x":'.repeat(10_000)}"x"${'}'.repeat(10_000)}`;
    const call = JSON.stringify(toolCall(attack, 'Write', { file_path: join(box.dir, '.claude', 'settings.json'), content: '{}', x: 'DEEP' })).replace('"DEEP"', deep);
    expect(expectDenied(await runHook(box.env, call))).toMatch(/recap/);
    await expectStillWorking(attack);
  });

  it('with the daemon stopped and its verdict file damaged, a tool call is denied (not known to be open), the way out passes', async () => {
    const env = { ...box.env, RECAP_HOOK_DEADLINE_MS: '600' };
    const file = join(dirname(box.socket), 'verdicts.json');
    const saved = readFileSync(file);
    attack.daemon.child.kill('SIGSTOP');
    try {
      writeFileSync(file, '{"version": 1, "tripped": ');
      const read = toolCall(attack, 'Read', { file_path: join(box.project, 'README.md') });
      expect(expectDenied(await runHook(env, read))).toContain('cannot be read');
      expectAllowed(await runHook(env, toolCall(attack, 'Bash', { command: `${launcherOf(attack)} status` })));
    } finally {
      writeFileSync(file, saved);
      attack.daemon.child.kill('SIGCONT');
    }
    await expectStillWorking(attack);
  });

  it("with the daemon stopped (SIGSTOP), recap's files stay protected by the hook itself", async () => {
    const env = { ...box.env, RECAP_HOOK_DEADLINE_MS: '600' };
    attack.daemon.child.kill('SIGSTOP');
    try {
      const write = toolCall(attack, 'Write', { file_path: join(box.dir, '.claude', 'settings.json'), content: '{}' });
      expect(expectDenied(await runHook(env, write))).toMatch(/daemon is not answering/i);
      expect(expectDenied(await runHook(env, toolCall(attack, 'Bash', { command: 'rm -rf ~/.claude/settings.json' })))).toMatch(/daemon is not answering/i);
    } finally {
      attack.daemon.child.kill('SIGCONT');
    }
    await expectStillWorking(attack);
  });
});

describe('on a tripped gate', () => {
  let attack: Attack;
  beforeAll(async () => {
    attack = await trippedSandbox();
  });
  afterAll(() => endAttack(attack));

  it.each([["kill -STOP $(pgrep -f 'bin/re[c]ap.js daemon')"], ["printf 'f() { :; }' >> ~/.bashrc"], ['cd ~/.cla?de && sed -i s/PreToolUse/Nope/ settings.json']])(
    'Bash %j is denied, and the way out stays open',
    async (command) => {
      expectDenied(await bash(attack, command));
      await expectWayOutOpen(attack);
    },
  );

  it('the way out works after them', async () => {
    await proveWayOut(attack);
  });
});
