// `recap install launchd` through the real CLI on this Linux machine: --dry-run prints the plist
// a Mac would get (macOS's paths, this Node and this recap) and the launchctl commands, and
// writes nothing; without --dry-run, install and uninstall say launchd is macOS's and change
// nothing. The same --dry-run for systemd's units.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'plist';
import { afterEach, describe, expect, it } from 'vitest';
import { RECAP, runCli, type Sandbox } from '../helpers/daemon.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * A temporary HOME and nothing else of recap's: no RECAP_* or XDG_* variables, so recap finds
 * its paths by the platform's defaults, as on a user's Mac; $TMPDIR as macOS sets it.
 */
function home(): Sandbox & { tmp: string } {
  const dir = mkdtempSync(join(tmpdir(), 'recap-launchd-'));
  dirs.push(dir);
  const tmp = `${dir}/T/`;
  return { dir, tmp, env: { PATH: process.env.PATH, HOME: dir, TMPDIR: tmp }, socket: '', data: '', config: '', project: dir };
}

/** Every file and folder under `dir`: a run that changes nothing leaves the same list. */
function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
}

describe('recap install launchd --dry-run', () => {
  it("prints the plist ~/Library/LaunchAgents/recap.daemon.plist would hold, with macOS's paths, and the launchctl commands", async () => {
    const box = home();
    const result = await runCli(box, ['install', 'launchd', '--dry-run']);
    expect(result.code, result.stderr).toBe(0);
    const file = join(box.dir, 'Library', 'LaunchAgents', 'recap.daemon.plist');
    const [head, rest] = result.stdout.split(`--- ${file}\n`);
    expect(head).toBe('dry run: recap wrote and ran nothing; it would write\n');
    const [plistText, runs] = rest!.split('</plist>\n');
    const support = join(box.dir, 'Library', 'Application Support', 'recap');
    expect(parse(`${plistText}</plist>`)).toEqual({
      Label: 'recap.daemon',
      ProgramArguments: [process.execPath, '--max-semi-space-size=8', RECAP, 'daemon'],
      EnvironmentVariables: {
        MALLOC_ARENA_MAX: '2',
        MALLOC_MMAP_THRESHOLD_: '131072',
        RECAP_SOCKET: join(box.tmp, `recap-${process.getuid!()}`, 'recapd.sock'),
        RECAP_DATA_DIR: support,
        RECAP_CONFIG: join(support, 'config.conf'),
      },
      RunAtLoad: true,
      KeepAlive: { SuccessfulExit: false },
      ProcessType: 'Interactive',
      StandardOutPath: join(support, 'launchd.log'),
      StandardErrorPath: join(support, 'launchd.log'),
    });
    const uid = process.getuid!();
    expect(runs).toBe(`run: /bin/launchctl bootout gui/${uid}/recap.daemon\nrun: /bin/launchctl bootstrap gui/${uid} ${file}\n`);
  });

  it('writes nothing: not the plist, not the data folder, not the manifest of recap’s code', async () => {
    const box = home();
    const before = tree(box.dir);
    const result = await runCli(box, ['install', 'launchd', '--dry-run', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ dryRun: true, files: [{ file: join(box.dir, 'Library', 'LaunchAgents', 'recap.daemon.plist') }] });
    expect(tree(box.dir)).toEqual(before);
  });
});

describe('recap install launchd and uninstall launchd, on Linux', () => {
  it.each([['install'], ['uninstall']])('%s: a usage error that says launchd is macOS’s, and nothing written', async (command) => {
    const box = home();
    const before = tree(box.dir);
    const result = await runCli(box, [command, 'launchd']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `recap: launchd is macOS's service manager, and this is linux: recap ${command} launchd runs on a Mac (here, recap install systemd); ` +
        'recap install launchd --dry-run shows the plist on any system\n',
    );
    const json = await runCli(box, [command, 'launchd', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: 'usage' } });
    expect(tree(box.dir)).toEqual(before);
  });
});

describe('recap install systemd --dry-run', () => {
  it('prints both units with this installation’s ExecStart, and writes nothing', async () => {
    const box = home();
    const before = tree(box.dir);
    const result = await runCli(box, ['install', 'systemd', '--dry-run', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const { files, commands } = JSON.parse(result.stdout) as { files: { file: string; text: string }[]; commands: string[][] };
    const units = join(box.dir, '.config', 'systemd', 'user');
    expect(files.map((f) => f.file)).toEqual([join(units, 'recap.service'), join(units, 'recap.socket')]);
    expect(files[0]!.text).toContain(
      `ExecStart=${process.execPath} --max-semi-space-size=8 ${RECAP} daemon\nEnvironment=MALLOC_ARENA_MAX=2\nEnvironment=MALLOC_MMAP_THRESHOLD_=131072\n`,
    );
    expect(commands).toEqual([]);
    expect(tree(box.dir)).toEqual(before);
  });
});

describe('--dry-run for an agent', () => {
  it('is a usage error that says what --dry-run is for, and installs nothing', async () => {
    const box = home();
    const before = tree(box.dir);
    const result = await runCli(box, ['install', 'claude', '--dry-run']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('recap: --dry-run is for recap install systemd and launchd; for claude, recap doctor shows what is installed\n');
    expect(tree(box.dir)).toEqual(before);
  });
});
