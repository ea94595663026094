// Reaching recap's files and daemon from somewhere else, through the real recap-hook and the
// real daemon: a `cd` (or `git -C`, a subshell, `bash -c`) to the folder above recap's data,
// then a relative path; a `~` bash leaves as it is, behind a link named `~` to `/`; the
// daemon's open event log through /proc/<pid>/fd, read or truncated; the daemon's pid with
// a zero in front; a copy landing on the data folder under its source's name, a folder's
// contents or an archive unpacked into home, home locked. Each is denied on an open gate,
// where only the protection rules stand, and on a tripped one; ordinary work (open) or the
// way out (tripped) goes on after.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readlinkSync, symlinkSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeSandbox, sandbox, type Sandbox } from '../helpers/daemon.js';
import { expectDenied, expectStillWorking, openGate, proveWayOut, runHook, runShell, toolCall, trippedGate, type Attack } from '../helpers/gateAttack.js';

/** One of the daemon's open files inside its data folder (its event log), as /proc names it. */
function openLogFd(attack: Attack): string {
  const fds = `/proc/${attack.daemon.child.pid}/fd`;
  const fd = readdirSync(fds).find((n) => {
    try {
      return readlinkSync(join(fds, n)).startsWith(attack.box.data);
    } catch {
      return false;
    }
  });
  expect(fd, 'the daemon holds a file of its data folder open').toBeDefined();
  return join(fds, fd!);
}

/** Processes started for a move: a program sitting in the folder above recap's data. */
const sleepers: ChildProcess[] = [];
afterAll(() => sleepers.forEach((s) => s.kill()));

/** [what, tool, input]: each names recap's files or daemon from another place. */
function moves(attack: Attack): [string, string, unknown][] {
  const { box } = attack;
  const up = relative(box.project, dirname(box.data));
  const data = basename(box.data);
  const pid = attack.daemon.child.pid!;
  const sleeper = spawn('sleep', ['600'], { cwd: dirname(box.data), stdio: 'ignore' });
  sleepers.push(sleeper);
  const thread = readdirSync(`/proc/${pid}/task`).find((tid) => tid !== String(pid));
  return [
    ["another process's folder, through /proc/<pid>/cwd", 'Bash', { command: `rm -rf /proc/${sleeper.pid}/cwd/${data}/log` }],
    ["another process's folder, read through /proc/<pid>/cwd", 'Read', { file_path: `/proc/${sleeper.pid}/cwd/${data}/log/CURRENT` }],
    ["a thread of the daemon's", 'Bash', { command: `kill -9 ${thread}` }],
    ['a descriptor opened on the folder above', 'Bash', { command: `cat /dev/fd/3/${data}/log/CURRENT 3<${up}` }],
    ['code in backticks', 'Bash', { command: `echo \`rm -rf ${up}/${data}/log\`` }],
    ['a brace expansion', 'Bash', { command: `rm -rf ${up}/{${data},x}/log` }],
    ['a cd to the folder above the data', 'Bash', { command: `cd ${up} && rm -rf ${data}/log` }],
    ['a cd in a subshell', 'Bash', { command: `(cd ${up}; truncate -s 0 ${data}/log/CURRENT)` }],
    ['a cd in code handed to bash -c', 'Bash', { command: `bash -c 'cd ${up} && rm -rf ${data}/log'` }],
    ['git -C the folder above', 'Bash', { command: `git -C ${up} rm -r ${data}` }],
    ['a quoted ~ behind a link to /', 'Bash', { command: `cat '~${box.data}/log/CURRENT'` }],
    ["the daemon's open log, read", 'Read', { file_path: openLogFd(attack) }],
    ["the daemon's open log, truncated", 'Bash', { command: `: > ${openLogFd(attack)}` }],
    ["the daemon's open files, by a glob", 'Bash', { command: `cat /proc/${pid}/fd/*` }],
    ["the daemon's pid with a zero in front", 'Bash', { command: `kill -9 0${pid}` }],
    // Where a copy lands without the line naming it (box.data is home's `data`).
    ['a folder copied into home under the data folder’s name', 'Bash', { command: `cp -r /tmp/elsewhere/${data} ~` }],
    ["a folder's contents copied into home", 'Bash', { command: 'rsync -a /tmp/elsewhere/ ~/' }],
    ['an archive unpacked into home', 'Bash', { command: 'tar -xf /tmp/elsewhere.tar -C ~' }],
    ['home itself locked', 'Bash', { command: 'chmod 000 ~' }],
    ["a folder's contents merged into home (cp -T)", 'Bash', { command: 'cp -rT /tmp/elsewhere ~' }],
    ['a copy keeping its path under home (cp --parents)', 'Bash', { command: `cd /tmp/elsewhere && cp -r --parents ${data}/log ~` }],
    ['a patch applied in home', 'Bash', { command: 'patch -d ~ -p1 < /tmp/elsewhere.diff' }],
    ['a checkout with home as the work tree', 'Bash', { command: 'git --git-dir=/tmp/elsewhere/.git --work-tree=$HOME reset --hard' }],
  ];
}

/** A sandbox whose project holds a link named `~` to the root. */
function boxWithTildeLink(): Sandbox {
  const box = sandbox();
  symlinkSync('/', join(box.project, '~'));
  return box;
}

describe.skipIf(process.platform !== 'linux')("recap's files and daemon named from another place", () => {
  describe('on an open gate', () => {
    let attack: Attack;
    beforeAll(async () => {
      attack = await openGate(boxWithTildeLink());
    });
    afterAll(async () => {
      await attack?.daemon.stop();
      if (attack) removeSandbox(attack.box);
    });

    it('then each move is denied and says why, and ordinary work goes on', async () => {
      for (const [what, tool, input] of moves(attack)) {
        const reason = expectDenied(await runHook(attack.box.env, toolCall(attack, tool, input)));
        expect(reason, what).toMatch(/recap's own (files|process)|recap's daemon \(pid|below an open file descriptor/);
      }
      await expectStillWorking(attack);
      expect(attack.daemon.child.exitCode).toBeNull();
    });

    it('then a cd to the same folder passes, and runs, when it names the project rather than the data', async () => {
      expectDenied(await runHook(attack.box.env, toolCall(attack, 'Bash', { command: `cd .. && ls ${basename(attack.box.data)}` })));
      const run = await runHook(attack.box.env, toolCall(attack, 'Bash', { command: `cd .. && ls ${basename(attack.box.project)}` }));
      expect(run.stdout).not.toContain('"deny"');
      expect((await runShell(attack, `cd .. && ls ${basename(attack.box.project)}`)).exitCode).toBe(0);
    });

    it("then a copy into the project's own folders passes, and runs", async () => {
      const command = 'cp -r .git copied && mkdir mirrored && cp -a .git/. mirrored/';
      expect((await runHook(attack.box.env, toolCall(attack, 'Bash', { command }))).stdout).not.toContain('"deny"');
      expect((await runShell(attack, command)).exitCode).toBe(0);
    });
  });

  describe('on a tripped gate', () => {
    let attack: Attack;
    beforeAll(async () => {
      attack = await trippedGate(boxWithTildeLink());
    });
    afterAll(async () => {
      await attack?.daemon.stop();
      if (attack) removeSandbox(attack.box);
    });

    it('then each move is denied, and the way out still opens the gate', async () => {
      for (const [what, tool, input] of moves(attack)) expect(expectDenied(await runHook(attack.box.env, toolCall(attack, tool, input))), what).toBeTruthy();
      await proveWayOut(attack);
    });
  });
});
