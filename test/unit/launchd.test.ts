// recap's launchd agent on macOS, proved on Linux: the plist round-trips through the plist
// package and holds only keys launchd.plist(5) documents, with the types it gives them; the
// launchctl commands recap runs are built right (the runner is handed in, so no launchctl
// runs); `launchctl print` is read from fixtures (test/fixtures/macos/README.md says where
// their shape comes from); and doctor's word on each state of the agent.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'plist';
import { afterEach, describe, expect, it } from 'vitest';
import { RECAP_BIN } from '../../src/common/bins.js';
import { LAUNCHD_LABEL, launchdPlistPath } from '../../src/common/launchdAgentPath.js';
import { installLaunchd, launchdAgent, planLaunchdInstall, renderPlist, uninstallLaunchd } from '../../src/client/installLaunchd.js';
import { bootoutArgs, bootstrapArgs, launchdState, printArgs, type Launchctl, type Ran } from '../../src/platform/macos/launchctl.js';
import { launchdCheck, type LaunchdFacts } from '../../src/client/launchdCheck.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'macos');
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');
const UID = 501;
const TMPDIR = '/var/folders/7x/k2j5d1xs0hb8c9t1zq3y8w4m0000gn/T/';

const isString = (v: unknown) => typeof v === 'string';
const isBoolean = (v: unknown) => typeof v === 'boolean';
const isStrings = (v: unknown) => Array.isArray(v) && v.every(isString);
const isStringDict = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v) && Object.values(v).every(isString);
/** KeepAlive is a boolean, or a dictionary of the conditions launchd.plist(5) lists. */
const isKeepAlive = (v: unknown) =>
  isBoolean(v) ||
  (v !== null &&
    typeof v === 'object' &&
    Object.entries(v).every(([k, c]) => ['SuccessfulExit', 'Crashed', 'NetworkState', 'PathState', 'OtherJobEnabled', 'AfterInitialDemand'].includes(k) && c !== undefined));

/**
 * The keys launchd.plist(5) documents for a job that recap could use, each with the type the
 * manual gives it (ProcessType with its four values). A key outside this table is one launchd
 * does not document, and fails the test.
 */
const DOCUMENTED: Record<string, (value: unknown) => boolean> = {
  Label: isString,
  Disabled: isBoolean,
  Program: isString,
  ProgramArguments: isStrings,
  EnvironmentVariables: isStringDict,
  WorkingDirectory: isString,
  RunAtLoad: isBoolean,
  KeepAlive: isKeepAlive,
  ThrottleInterval: Number.isInteger,
  ExitTimeOut: Number.isInteger,
  ProcessType: (v) => ['Background', 'Standard', 'Adaptive', 'Interactive'].includes(v as string),
  StandardInPath: isString,
  StandardOutPath: isString,
  StandardErrorPath: isString,
  Umask: Number.isInteger,
  LimitLoadToSessionType: isString,
};

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function home(): string {
  const dir = mkdtempSync(join(tmpdir(), 'recap-launchd-'));
  dirs.push(dir);
  return dir;
}

/** A launchctl that answers as told and keeps each argv it was given. */
function recording(answer: (args: string[]) => Ran = () => ({ status: 0, stdout: '', stderr: '' })): { launchctl: Launchctl; calls: string[][] } {
  const calls: string[][] = [];
  return {
    calls,
    launchctl: (args) => {
      calls.push(args);
      return answer(args);
    },
  };
}

describe('the plist', () => {
  const env = { HOME: '/Users/ada', TMPDIR };

  it('round-trips through the plist package: what is parsed back is the agent recap made', () => {
    const agent = launchdAgent(env);
    const text = renderPlist(agent);
    expect(text).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<!DOCTYPE plist PUBLIC "-\/\/Apple\/\/DTD PLIST 1.0\/\/EN"/);
    expect(parse(text)).toEqual(agent);
  });

  it('holds only keys launchd.plist(5) documents, each of its documented type', () => {
    const parsed = parse(renderPlist(launchdAgent(env))) as Record<string, unknown>;
    for (const [key, value] of Object.entries(parsed)) {
      expect(Object.keys(DOCUMENTED), `${key} is not a key launchd documents`).toContain(key);
      expect(DOCUMENTED[key]!(value), `${key} = ${JSON.stringify(value)}`).toBe(true);
    }
    // The check has teeth: a misspelt key, or a value of the wrong type, is caught.
    expect(Object.keys(DOCUMENTED)).not.toContain('KeepAlives');
    expect(DOCUMENTED.ProcessType!('Foreground')).toBe(false);
    expect(DOCUMENTED.KeepAlive!({ SuccesfulExit: false })).toBe(false);
  });

  it('runs this Node and this recap as the daemon, at load, again when it fails', () => {
    const parsed = parse(renderPlist(launchdAgent(env))) as Record<string, unknown>;
    expect(parsed).toMatchObject({
      Label: LAUNCHD_LABEL,
      // Node's flags and the environment recap gives its daemon (daemonStart.ts).
      ProgramArguments: [process.execPath, '--max-semi-space-size=8', RECAP_BIN, 'daemon'],
      RunAtLoad: true,
      KeepAlive: { SuccessfulExit: false },
      ProcessType: 'Interactive',
    });
  });

  it("names macOS's socket, data and config, so the daemon listens where the user's terminal looks", () => {
    const support = '/Users/ada/Library/Application Support/recap';
    expect(launchdAgent(env).EnvironmentVariables).toEqual({
      MALLOC_ARENA_MAX: '2',
      MALLOC_MMAP_THRESHOLD_: '131072',
      RECAP_SOCKET: `${TMPDIR}recap-${process.getuid!()}/recapd.sock`,
      RECAP_DATA_DIR: support,
      RECAP_CONFIG: `${support}/config.conf`,
    });
    expect(launchdAgent(env).StandardErrorPath).toBe(`${support}/launchd.log`);
    // What the user set wins, as it does in their terminal.
    expect(launchdAgent({ ...env, RECAP_SOCKET: '/s/recapd.sock', XDG_DATA_HOME: '/x/data' }).EnvironmentVariables).toMatchObject({
      RECAP_SOCKET: '/s/recapd.sock',
      RECAP_DATA_DIR: '/x/data/recap',
    });
  });

  it('quotes what XML must: a path with & or < stays that path', () => {
    const agent = { ...launchdAgent(env), StandardOutPath: '/Users/a&b/<log>' };
    expect((parse(renderPlist(agent)) as Record<string, unknown>).StandardOutPath).toBe('/Users/a&b/<log>');
  });
});

describe('the launchctl commands', () => {
  it('bootstrap loads the plist into gui/<uid>; bootout and print name the service gui/<uid>/<label>', () => {
    expect(bootstrapArgs(UID, '/Users/ada/Library/LaunchAgents/recap.daemon.plist')).toEqual(['bootstrap', 'gui/501', '/Users/ada/Library/LaunchAgents/recap.daemon.plist']);
    expect(bootoutArgs(UID, LAUNCHD_LABEL)).toEqual(['bootout', 'gui/501/recap.daemon']);
    expect(printArgs(UID, LAUNCHD_LABEL)).toEqual(['print', 'gui/501/recap.daemon']);
  });

  it('install writes ~/Library/LaunchAgents/recap.daemon.plist, boots out an earlier agent, then bootstraps the file', () => {
    const env = { HOME: home() };
    const plan = planLaunchdInstall(env, UID);
    const { launchctl, calls } = recording();
    installLaunchd(plan, launchctl);
    expect(plan.file).toBe(join(env.HOME, 'Library', 'LaunchAgents', 'recap.daemon.plist'));
    expect(readFileSync(plan.file, 'utf8')).toBe(plan.text);
    expect(calls).toEqual([
      ['bootout', 'gui/501/recap.daemon'],
      ['bootstrap', 'gui/501', plan.file],
    ]);
  });

  it("install says which launchctl command failed and what it said, and keeps the plist for the user's own try", () => {
    const env = { HOME: home() };
    const plan = planLaunchdInstall(env, UID);
    const { launchctl } = recording((args) =>
      args[0] === 'bootstrap' ? { status: 5, stdout: '', stderr: 'Bootstrap failed: 5: Input/output error\n' } : { status: 0, stdout: '', stderr: '' },
    );
    expect(() => installLaunchd(plan, launchctl)).toThrow(
      `recap wrote ${plan.file}, but launchctl bootstrap gui/501 ${plan.file} failed (Bootstrap failed: 5: Input/output error); run that command yourself, or recap install launchd again`,
    );
    expect(existsSync(plan.file)).toBe(true);
  });

  it('uninstall boots the agent out and removes the plist; with none there, it runs nothing', () => {
    const env = { HOME: home() };
    installLaunchd(planLaunchdInstall(env, UID), recording().launchctl);
    const { launchctl, calls } = recording();
    expect(uninstallLaunchd(env, UID, launchctl)).toEqual([launchdPlistPath(env)]);
    expect(calls).toEqual([['bootout', 'gui/501/recap.daemon']]);
    expect(existsSync(launchdPlistPath(env))).toBe(false);

    const again = recording();
    expect(uninstallLaunchd(env, UID, again.launchctl)).toEqual([]);
    expect(again.calls).toEqual([]);
  });

  it("uninstall leaves a plist of that name that is not recap's, and runs nothing", () => {
    const env = { HOME: home() };
    const file = launchdPlistPath(env);
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, renderPlist({ ...launchdAgent(env), Label: 'someone.else' }));
    const { launchctl, calls } = recording();
    expect(() => uninstallLaunchd(env, UID, launchctl)).toThrow(`${file} is not recap's launchd agent; recap left it and removed nothing`);
    expect(existsSync(file)).toBe(true);
    expect(calls).toEqual([]);
  });
});

describe('launchctl print, read', () => {
  const target = 'gui/501/recap.daemon';

  it('a running agent: loaded, running, with its pid', () => {
    expect(launchdState(target, { status: 0, stdout: fixture('launchctl-print-running.txt'), stderr: '' })).toEqual({ loaded: true, running: true, pid: 8123 });
  });

  it("a loaded agent after a clean exit: not running (a nested block's own state = active is not the service's)", () => {
    expect(launchdState(target, { status: 0, stdout: fixture('launchctl-print-not-running.txt'), stderr: '' })).toEqual({ loaded: true, running: false });
  });

  it('a label launchd does not hold (status 113): not loaded', () => {
    expect(launchdState(target, { status: 113, stdout: '', stderr: fixture('launchctl-print-missing.stderr.txt') })).toEqual({ loaded: false });
  });

  it("another service's block, or a launchctl that could not run: not loaded", () => {
    const other = fixture('launchctl-print-running.txt').replace('gui/501/recap.daemon = {', 'gui/501/someone.else = {');
    expect(launchdState(target, { status: 0, stdout: other, stderr: '' })).toEqual({ loaded: false });
    expect(launchdState(target, { status: null, stdout: '', stderr: '/bin/launchctl could not run' })).toEqual({ loaded: false });
  });
});

describe("recap doctor's launchd check", () => {
  const file = '/Users/ada/Library/LaunchAgents/recap.daemon.plist';
  const expected = ['/opt/homebrew/bin/node', '/opt/homebrew/lib/node_modules/recap/bin/recap.js', 'daemon'];
  const facts = (over: Partial<LaunchdFacts>): LaunchdFacts => ({
    file,
    plist: { Label: LAUNCHD_LABEL, ProgramArguments: expected },
    expected,
    state: { loaded: true, running: true, pid: 8123 },
    uid: UID,
    ...over,
  });

  it('no agent installed: well, and says how to have one', () => {
    expect(launchdCheck(facts({ plist: 'absent', state: { loaded: false } }))).toEqual({
      name: 'launchd',
      ok: true,
      detail: 'no launchd agent: the daemon starts on first use (recap install launchd starts it at login and keeps it running)',
    });
  });

  it('loaded and running this recap: well, with its pid', () => {
    expect(launchdCheck(facts({}))).toEqual({ name: 'launchd', ok: true, detail: `loaded and running (pid 8123); ${file}` });
  });

  it('an agent naming another recap or Node (an upgrade since): not well, install again', () => {
    const check = launchdCheck(facts({ plist: { Label: LAUNCHD_LABEL, ProgramArguments: ['/usr/local/bin/node', '/old/recap.js', 'daemon'] } }));
    expect(check).toMatchObject({ ok: false, fix: 'recap install launchd again (after an upgrade or a new Node, the agent still names the old one)' });
    expect(check.detail).toBe(`${file} runs /usr/local/bin/node /old/recap.js daemon, not this recap (${expected.join(' ')})`);
  });

  it('a file of that name that is not a plist, or not recap’s: not well', () => {
    for (const plist of [undefined, { Label: 'someone.else' }]) {
      expect(launchdCheck(facts({ plist }))).toMatchObject({ ok: false, detail: `${file} is not recap's launchd agent (no Label recap.daemon)` });
    }
  });

  it('the plist there but not loaded: not well, with the bootstrap command to run', () => {
    expect(launchdCheck(facts({ state: { loaded: false } }))).toEqual({
      name: 'launchd',
      ok: false,
      detail: `${file} is there but launchd has not loaded it, so the daemon does not start at login`,
      fix: `launchctl bootstrap gui/501 ${file} (or recap install launchd again)`,
    });
  });

  it('loaded, not running: well (recap stop leaves it so), and says where to look if it failed', () => {
    expect(launchdCheck(facts({ state: { loaded: true, running: false } }))).toMatchObject({ ok: true, detail: expect.stringContaining('loaded, not running') });
  });
});
