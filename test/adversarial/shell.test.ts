// Issue 12, item 5: recap's setup commands are the user's. Through the real recap-hook and
// the real daemon, every spelling the shell grammar allows for running recap (quoting, eval,
// shells' -c, xargs, env, command, exec, nohup, timeout, brace expansion, a path to the bin,
// npx, node, a computed command word) is denied, on a tripped gate and on an open one; after
// each, the way out (tripped) or ordinary work (open) still goes on. Bare `recap`, found on
// PATH, is not recap to the gate: only the launcher in the data folder is.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeSandbox, RECAP, sandbox, startDaemon, type Sandbox } from '../helpers/daemon.js';
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
  trippedGate,
  type Attack,
} from '../helpers/gateAttack.js';

/** `L` stands for the launcher's path, filled in once the sandbox exists. */
const SPELLINGS: [string, string][] = [
  ['uninstall', 'recap uninstall claude'],
  ['install into the project', 'recap install claude --scope project'],
  ['config allow', 'recap config allow'],
  ['config with another subcommand', 'recap config set TOKEN_THRESHOLD 99999'],
  ['daemon', 'recap daemon'],
  ['trip', 'recap trip'],
  ['import', 'recap import backup.jsonl'],
  ['stop', 'recap stop'],
  ['restart', 'recap restart'],
  ['reload', 'recap reload'],
  ['ANSI-C quoted subcommand', "recap $'uninstall' claude"],
  ['quotes inside the command word', "re'c'ap uninstall claude"],
  ['double quotes inside the command word', 're""cap uninstall claude'],
  ['a backslash in the command word', 'r\\ecap uninstall claude'],
  ['a leading backslash (alias bypass)', '\\recap uninstall claude'],
  ['eval', 'eval recap uninstall claude'],
  ['eval of a quoted, split name', 'eval "re""cap uninstall claude"'],
  ['bash -c', "bash -c 'recap uninstall claude'"],
  ['sh -c with quotes hiding the name', `sh -c "r''ecap uninstall claude"`],
  ['bash -lc', "bash -lc 'recap daemon'"],
  ['busybox sh -c', "busybox sh -c 'recap trip'"],
  ['xargs', 'echo uninstall claude | xargs recap'],
  ['xargs into sh -c', "echo 'recap uninstall claude' | xargs -I{} sh -c {}"],
  ['env', 'env recap uninstall claude'],
  ['env -i with an assignment', 'env -i PATH=/usr/bin recap trip'],
  ['env -S', "env -S 'recap uninstall claude'"],
  ['/usr/bin/env, quoted', "'/usr/bin/env' recap uninstall claude"],
  ['command', 'command recap uninstall claude'],
  ['exec', 'exec recap uninstall claude'],
  ['nohup in the background', 'nohup recap daemon &'],
  ['timeout', 'timeout 5 recap uninstall claude'],
  ['time', 'time recap uninstall claude'],
  ['nice -n', 'nice -n 5 recap daemon'],
  ['setsid', 'setsid recap daemon'],
  ['stdbuf', 'stdbuf -o0 recap uninstall claude'],
  ['sudo', 'sudo -u "$USER" recap uninstall claude'],
  ['brace expansion in the command word', 're{c,}ap uninstall claude'],
  ['brace expansion giving the whole name', '{recap,} uninstall claude'],
  ['a variable as the command word', 'x=recap; $x uninstall claude'],
  ['a variable as the subcommand', 'x=uninstall; recap $x claude'],
  ['command substitution as the command word', "$(printf '\\x72ecap') uninstall claude"],
  ['backticks as the command word', '`echo recap` uninstall claude'],
  ['a decoded name in a variable', 'R=$(echo cmVjYXA= | base64 -d); $R uninstall claude'],
  ['a shell reading a pipe', "printf 'recap uninstall claude' | sh"],
  ['a shell reading a here-document', "sh <<'EOF'\nrecap uninstall claude\nEOF"],
  ['bash -c with decoded code', 'bash -c "$(echo cmVjYXAgdW5pbnN0YWxsIGNsYXVkZQ== | base64 -d)"'],
  ['find -exec', 'find . -maxdepth 0 -exec recap uninstall claude \\;'],
  ['after cd', 'cd /tmp && recap uninstall claude'],
  ['after true &&', 'true && recap uninstall claude'],
  ['in a subshell', '(recap uninstall claude)'],
  ['in a group', '{ recap uninstall claude; }'],
  ['a line continuation', 'recap uninstall\\\n claude'],
  ['the package bin by path', `${RECAP} uninstall claude`],
  ['node with the package bin', `node ${RECAP} uninstall claude`],
  ['npx', 'npx recap uninstall claude'],
  ['npx --yes', 'npx --yes recap trip'],
  ['python subprocess', `python3 -c "import subprocess; subprocess.run(['recap', 'uninstall', 'claude'])"`],
  ['node child_process', `node -e "require('child_process').execSync('recap uninstall claude')"`],
  ['the launcher itself, uninstall', 'L uninstall claude'],
  ['the launcher itself, config allow', 'L config allow'],
  ['the launcher with a global option first', 'L --json uninstall claude'],
  ['the launcher, quoted, trip', "'L' trip"],
];

const spelled = (attack: Attack, command: string) => command.replace(/(^|[\s'(])L(?=[\s'])/g, `$1${launcherOf(attack)}`);
const bash = (attack: Attack, command: string) => runHook(attack.box.env, toolCall(attack, 'Bash', { command, description: 'run it' }));

describe('a tripped gate: every spelling of a recap setup command is denied, and the way out stays open', () => {
  let box: Sandbox;
  let attack: Attack;
  beforeAll(async () => {
    box = sandbox();
    attack = await trippedGate(box);
  });
  afterAll(async () => {
    await attack?.daemon.stop();
    removeSandbox(box);
  });

  it.each(SPELLINGS)('%s: %s', async (_label, command) => {
    expectDenied(await bash(attack, spelled(attack, command)));
    await expectWayOutOpen(attack);
  });

  it('bare recap status (PATH lookup) is denied with a reason naming the launcher, which passes', async () => {
    const reason = expectDenied(await bash(attack, 'recap status'));
    expect(reason).toContain(`name recap as ${launcherOf(attack)}`);
    expectAllowed(await bash(attack, `${launcherOf(attack)} status`));
    const ran = await runShell(attack, `${launcherOf(attack)} status`);
    expect(ran.exitCode, ran.stderr).toBe(0);
    expect(ran.stdout).toContain('TRIPPED');
  });

  it('a recap written into a folder on PATH later is not run by the way out: the launcher names its own node and bin', async () => {
    // The launcher does not look anything up on PATH, so no file there changes what it runs.
    const ran = await runShell(attack, `cat ${launcherOf(attack)}`);
    expect(ran.stdout).toContain(`exec '${process.execPath}'`);
    expect(ran.stdout).not.toMatch(/\benv\b/);
  });

  it("after the whole family, the deny message's exact command opens the gate in a real shell", async () => {
    await proveWayOut(attack);
  });
});

describe('an open gate: every spelling of a recap setup command is denied, and work goes on', () => {
  let box: Sandbox;
  let attack: Attack;
  beforeAll(async () => {
    box = sandbox();
    attack = await openGate(box);
  });
  afterAll(async () => {
    await attack?.daemon.stop();
    removeSandbox(box);
  });

  it.each(SPELLINGS)('%s: %s', async (_label, command) => {
    const reason = expectDenied(await bash(attack, spelled(attack, command)));
    expect(reason).toContain(`Name recap exactly as ${launcherOf(attack)}`);
    await expectStillWorking(attack);
  });

  it('the setup refusal says whose command it is', async () => {
    const reason = expectDenied(await bash(attack, 'recap uninstall claude'));
    expect(reason).toContain("recap uninstall changes recap's setup; only the user may run it, outside the agent");
    expect(expectDenied(await bash(attack, `${launcherOf(attack)} config allow`))).toContain('recap config allow changes');
  });

  // The strict rule stops at words the shell will not run: an inert program (git commit,
  // grep, echo, cat, ls, cd) may mention recap; anything else that mentions it is denied,
  // since strictness wins where in doubt (npm install recap, a script writing "recap").
  it.each([
    ['a commit message', 'git commit --allow-empty -m "fix recap docs"'],
    ['a search', 'grep -rn "recap uninstall" README.md'],
    ['a folder named recap', 'cd ./recap-notes && ls'],
    ['echo', 'echo recap is a tool'],
    ['a script by its literal name', 'bash ./scripts/build.sh'],
    ['a pipeline of inert programs', 'cat README.md | grep -c recap'],
  ])('an everyday command that merely mentions recap passes: %s', async (_label, command) => {
    expectAllowed(await bash(attack, command));
  });

  it.each([
    ['a package install', 'npm install recap'],
    ['a file written with recap in it', "echo 'recap uninstall claude' > undo.sh"],
    ['a shell fed from a pipe', 'cat commands.txt | bash'],
    ['an interpreter given a computed script', 'node "$SCRIPT"'],
    ['eval of computed words', 'eval "$(cat cmd.txt)"'],
  ])('a command that could run recap is denied: %s', async (_label, command) => {
    expectDenied(await bash(attack, command));
    await expectStillWorking(attack);
  });
});

describe('the launcher the daemon writes', () => {
  let box: Sandbox;
  afterAll(() => removeSandbox(box));

  it('is 0700, names node and recap by absolute path, and is rewritten when it differs', async () => {
    box = sandbox();
    const daemon = await startDaemon(box);
    const attack: Attack = { box, daemon, session: 's', job: 'j', shellEnv: box.env };
    const launcher = launcherOf(attack);
    expect(statSync(launcher).mode & 0o777).toBe(0o700);
    const text = readFileSync(launcher, 'utf8');
    expect(text.startsWith('#!/bin/sh\n')).toBe(true);
    expect(text).toContain(`exec '${process.execPath}' '`);
    await daemon.stop();
    writeFileSync(launcher, '#!/bin/sh\necho shadowed\n');
    const again = await startDaemon(box);
    expect(readFileSync(launcher, 'utf8')).toBe(text);
    await again.stop();
  });
});
