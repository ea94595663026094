// recap's opencode plugin as `recap install opencode` renders it, loaded into this process the
// way opencode loads it (imported, called with a context) and driven hook by hook against the
// real daemon on a real socket: prompts counted but a subagent's, the deny thrown, the way out
// let through, the memory asked once per user message, and what it does when the daemon is
// gone: recap-hook starts it again; when recap-hook cannot run either, a session recap last
// knew as tripped stays denied (its way out excepted) and any other is let through, logged.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pluginSettings, renderPlugin } from '../../src/agents/opencode/install.js';
import { jobIdFor } from '../../src/common/jobs.js';
import { removeSandbox, runCli, sandbox, startDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { filledIn, submitCommandIn } from '../helpers/gateAttack.js';
import { goodSummary } from '../helpers/text.js';

type Hooks = Record<string, (input: unknown, output: unknown) => Promise<void>>;
type Loaded = { hooks: Hooks; logs: string[]; parents: Map<string, string> };

const LONG_PROMPT = 'Please move the nightly export to a queue and keep each invoice idempotent, logging every retry. '.repeat(30);
let loads = 0;

/** The plugin rendered for `env` (with another Node, if given), imported fresh, and called as opencode calls it. */
async function loadPlugin(box: Sandbox, node?: string): Promise<Loaded> {
  const file = join(box.dir, 'plugins', `recap-${(loads += 1)}.js`);
  mkdirSync(join(box.dir, 'plugins'), { recursive: true });
  writeFileSync(file, renderPlugin(pluginSettings(box.env, node)));
  const module = (await import(pathToFileURL(file).href)) as Record<string, (ctx: unknown) => Promise<Hooks>>;
  expect(Object.keys(module)).toEqual(['RecapPlugin']);
  const logs: string[] = [];
  const parents = new Map<string, string>();
  const client = {
    session: { get: async ({ path }: { path: { id: string } }) => ({ data: { id: path.id, parentID: parents.get(path.id) } }) },
    app: { log: async ({ body }: { body: { message: string } }) => void logs.push(body.message) },
    tui: { showToast: async () => true },
  };
  return { hooks: await module.RecapPlugin!({ directory: box.project, worktree: box.project, client, project: {}, $: undefined }), logs, parents };
}

const prompt = (p: Loaded, session: string, text: string) => {
  const output = { message: { id: 'msg_1', role: 'user' }, parts: [{ id: 'prt_1', type: 'text', text, sessionID: session, messageID: 'msg_1' }] };
  return p.hooks['chat.message']!({ sessionID: session }, output).then(() => output.parts);
};
const tool = (p: Loaded, session: string, name: string, args: unknown) => p.hooks['tool.execute.before']!({ tool: name, sessionID: session, callID: 'call_1' }, { args });
const system = async (p: Loaded, session: string, first = 'You are opencode') => {
  const output = { system: [first] };
  await p.hooks['experimental.chat.system.transform']!({ sessionID: session, model: {} }, output);
  return output.system.slice(1).join('\n');
};
const created = (p: Loaded, id: string, parentID?: string) =>
  p.hooks.event!({ event: { type: 'session.created', properties: { info: { id, ...(parentID ? { parentID } : {}), directory: '/x' } } } }, undefined);

/** The deny a tool call is met with (the thrown message), or undefined when it may run. */
async function denial(run: Promise<void>): Promise<string | undefined> {
  try {
    await run;
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

async function status(box: Sandbox): Promise<{ tripped: boolean; unsummarizedInteractions: number; summaries: number }> {
  return JSON.parse((await runCli(box, ['status', '--json'])).stdout);
}

describe("recap's opencode plugin against the real daemon", () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  let p: Loaded;

  beforeAll(async () => {
    box = sandbox();
    daemon = await startDaemon(box);
    p = await loadPlugin(box);
  });
  afterAll(async () => {
    await daemon?.stop();
    removeSandbox(box);
  });

  it("counts the user's prompt and not a subagent's, and names the user's session in bash", async () => {
    await created(p, 'ses_user');
    await created(p, 'ses_sub', 'ses_user');
    await prompt(p, 'ses_user', 'Add a health check.');
    await prompt(p, 'ses_sub', 'Look for the router file and report back.');
    await prompt(p, 'ses_user', '');
    expect(await status(box)).toMatchObject({ tripped: false, unsummarizedInteractions: 1 });
    // A session whose creation the plugin did not see: opencode is asked for its parent.
    p.parents.set('ses_sub2', 'ses_sub');
    await prompt(p, 'ses_sub2', 'A nested subagent prompt.');
    expect(await status(box)).toMatchObject({ unsummarizedInteractions: 1 });
    for (const session of ['ses_user', 'ses_sub', 'ses_sub2']) {
      const output = { env: {} as Record<string, string> };
      await p.hooks['shell.env']!({ cwd: box.project, sessionID: session, callID: 'c' }, output);
      expect(output.env).toEqual({ RECAP_OPENCODE_SESSION_ID: 'ses_user' });
    }
  });

  it('on a tripped gate throws the reason for a tool call, adds the notice to the prompt, and lets the way out through', async () => {
    const parts = await prompt(p, 'ses_user', LONG_PROMPT);
    expect(parts).toHaveLength(2);
    expect(parts[1]).toMatchObject({ id: 'prt_1recap', type: 'text', synthetic: true });
    expect(parts[1]!.text).toContain(`recap: job ${jobIdFor(box.project)} needs a summary`);
    const reason = await denial(tool(p, 'ses_user', 'bash', { command: 'ls', description: 'x' }));
    expect(reason).toMatch(/^recap: job \S+ needs a summary before any other tool can run/);
    // A subagent's call belongs to the user's session, and its job.
    expect(await denial(tool(p, 'ses_sub', 'write', { filePath: join(box.project, 'x.md'), content: 'x' }))).toContain('needs a summary');
    const command = filledIn(submitCommandIn(reason!));
    expect(await denial(tool(p, 'ses_user', 'bash', { command, description: 'submit' }))).toBeUndefined();
    const submitted = await runCli(box, ['submit'], { input: command.split('\n').slice(1, -1).join('\n'), env: { RECAP_OPENCODE_SESSION_ID: 'ses_user' } });
    expect(submitted.code, submitted.stderr).toBe(0);
    expect(await denial(tool(p, 'ses_user', 'read', { filePath: join(box.project, 'README.md') }))).toBeUndefined();
  });

  it('asks for the memory once per user message and gate change, never on the title request, and not for a subagent', async () => {
    const memory = await system(p, 'ses_user');
    expect(memory).toContain('1 summaries in its chain');
    expect(await system(p, 'ses_user', 'You are a title generator. You output ONLY a thread title.')).toBe('');
    expect(await system(p, 'ses_sub')).toBe('');
    // A second summary, submitted outside the session: the cached memory stays until the next user message.
    await prompt(p, 'ses_other', LONG_PROMPT);
    const reason = await denial(tool(p, 'ses_other', 'bash', { command: 'ls' }));
    const submitted = await runCli(box, ['submit'], { input: filledIn(submitCommandIn(reason!), 1).split('\n').slice(1, -1).join('\n') });
    expect(submitted.code, submitted.stderr).toBe(0);
    expect(await system(p, 'ses_user')).toBe(memory);
    await prompt(p, 'ses_user', 'Next step.');
    expect(await system(p, 'ses_user')).toContain('2 summaries in its chain');
  });
});

/** Stops the daemons recap-hook started on its own (each logs its pid when ready), and waits until they are gone. */
async function stopStartedDaemons(box: Sandbox): Promise<void> {
  const log = join(box.data, 'recapd.log');
  if (!existsSync(log)) return;
  const pids = readFileSync(log, 'utf8')
    .split('\n')
    .filter((l) => l.includes('"recap daemon ready"'))
    .map((l) => (JSON.parse(l) as { pid: number }).pid);
  for (const pid of pids) {
    const gone = new Promise((resolve) => spawn('tail', ['--pid', String(pid), '-f', '/dev/null']).once('exit', resolve));
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      continue; // Already gone.
    }
    await gone;
  }
}

describe('the plugin when the daemon is gone', () => {
  let box: Sandbox;
  let daemon: DaemonProcess | undefined;
  const summary = goodSummary();

  beforeAll(() => {
    box = sandbox();
  });
  afterEach(async () => {
    await daemon?.stop('SIGKILL');
    await stopStartedDaemons(box);
  });
  afterAll(() => removeSandbox(box));

  it('recap-hook starts it again, and its answer stands', async () => {
    daemon = await startDaemon(box);
    const p = await loadPlugin(box);
    await prompt(p, 'ses_a', LONG_PROMPT);
    await daemon.stop('SIGKILL');
    expect(await denial(tool(p, 'ses_a', 'bash', { command: 'ls' }))).toMatch(/^recap: job \S+ needs a summary/);
    expect(await status(box)).toMatchObject({ tripped: true });
  });

  it('when recap-hook cannot run either: a session last known as tripped is denied but its exact way out; another is let through and the user told', async () => {
    daemon = await startDaemon(box);
    const p = await loadPlugin(box, join(box.dir, 'no-such-node'));
    await prompt(p, 'ses_b', 'One more prompt.');
    const reason = await denial(tool(p, 'ses_b', 'bash', { command: 'ls' }));
    const command = submitCommandIn(reason!).split('\n')[0]!;
    await daemon.stop();
    const down = await denial(tool(p, 'ses_b', 'bash', { command: 'ls' }));
    expect(down).toMatch(/^recap: neither recap's daemon nor recap-hook answered \(.*recap-hook could not run/);
    expect(await denial(tool(p, 'ses_b', 'bash', { command: `${command}\n${summary}\nEOF` }))).toBeUndefined();
    expect(await denial(tool(p, 'ses_b', 'bash', { command: `${command}\n${summary}\nEOF\nrm -rf ~` }))).toBeDefined();
    expect(await denial(tool(p, 'ses_b', 'bash', { command: `${command.split(' ')[0]} status` }))).toBeUndefined();
    expect(await denial(tool(p, 'ses_b', 'bash', { command: `${command.split(' ')[0]} status; rm -rf ~` }))).toBeDefined();
    // The reads as recap's whitelist takes them, and nothing it refuses: an empty or option-like query, a leading zero.
    const launcher = command.split(' ')[0]!;
    for (const read of ["search 'export folder' --limit 5", 'timeline 12 --before 2', 'show 12', 'decisions --json']) {
      expect(await denial(tool(p, 'ses_b', 'bash', { command: `${launcher} ${read}` })), read).toBeUndefined();
    }
    for (const read of ["search ''", "search '--help'", 'search x --topic -x', 'timeline 012', 'show 012']) {
      expect(await denial(tool(p, 'ses_b', 'bash', { command: `${launcher} ${read}` })), read).toBeDefined();
    }
    expect(await denial(tool(p, 'ses_fresh', 'bash', { command: 'ls' }))).toBeUndefined();
    expect(p.logs.at(-1)).toMatch(/^recap: neither recap's daemon nor recap-hook answered .*; this bash call was not checked/);
    // A prompt is never blocked, whatever happens.
    await expect(prompt(p, 'ses_b', 'Still there?')).resolves.toHaveLength(1);
  });
});
