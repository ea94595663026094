// `recap install claude --scope project` writes the project's shared .claude/settings.json,
// a file meant to be committed: its hooks name the bin on PATH (`recap-hook claude`), never
// a path of this machine, and `recap doctor` checks that form and that PATH finds it.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { RECAP_EVENTS } from '../../src/agents/claude/settings.js';
import { runCli, trackedSandboxes, type Sandbox } from '../helpers/daemon.js';
import { HOOK } from '../helpers/gateAttack.js';

const { newBox, start } = trackedSandboxes(afterEach);

type Settings = { hooks: Record<string, { hooks: { type: string; command?: string }[] }[]> };
const sharedFile = (box: Sandbox) => join(box.project, '.claude', 'settings.json');

/** recap-hook on the box's PATH, as an install of recap leaves it (and node beside it). */
function withHookOnPath(box: Sandbox): NodeJS.ProcessEnv {
  const bin = join(box.dir, 'usr-bin');
  mkdirSync(bin, { recursive: true });
  symlinkSync(HOOK, join(bin, 'recap-hook'));
  return { PATH: `${bin}:${box.env.PATH ?? ''}` };
}

async function claudeHooksCheck(box: Sandbox, env: NodeJS.ProcessEnv): Promise<{ ok: boolean; detail: string }> {
  const doctor = await runCli(box, ['doctor', '--json'], { env });
  const checks = JSON.parse(doctor.stdout).checks as { name: string; ok: boolean; detail: string }[];
  return checks.find((c) => c.name === 'claude hooks')!;
}

describe('recap install claude --scope project', () => {
  it("writes the bin's name, no path of this machine, and the hook runs from PATH", async () => {
    const box = newBox();
    await start(box);
    const installed = await runCli(box, ['install', 'claude', '--scope', 'project']);
    expect(installed.code, installed.stderr).toBe(0);
    const text = readFileSync(sharedFile(box), 'utf8');
    expect(text).not.toContain(box.dir);
    expect(text).not.toContain(process.execPath);
    const settings = JSON.parse(text) as Settings;
    for (const { event } of RECAP_EVENTS) expect(settings.hooks[event]![0]!.hooks[0]!.command, event).toBe('recap-hook claude');

    // As Claude Code runs it on a teammate's machine: through a shell, found on PATH.
    const env = { ...box.env, ...withHookOnPath(box) };
    const prompt = { hook_event_name: 'UserPromptSubmit', session_id: 'team-1', cwd: box.project, prompt: 'from a teammate' };
    const ran = spawnSync('sh', ['-c', 'recap-hook claude'], { env, input: JSON.stringify(prompt), encoding: 'utf8' });
    expect(ran.status, ran.stderr).toBe(0);
    const status = JSON.parse((await runCli(box, ['status', '--json'])).stdout) as { unsummarizedInteractions: number };
    expect(status.unsummarizedInteractions).toBe(1);
  });

  it('doctor: the portable form passes where PATH finds recap-hook, and says what to do where it does not', async () => {
    const box = newBox();
    await start(box);
    expect((await runCli(box, ['install', 'claude', '--scope', 'project'])).code).toBe(0);
    expect(await claudeHooksCheck(box, withHookOnPath(box))).toMatchObject({ ok: true });
    const missing = await claudeHooksCheck(box, { PATH: '/usr/bin:/bin' });
    expect(missing.ok).toBe(false);
    expect(missing.detail).toContain('recap-hook is not on PATH, so Claude Code cannot run it here: put it on PATH (npm link in the clone of recap)');
  });

  it("doctor: a project file naming this machine's paths (as older installs wrote it) is reported, with the fix", async () => {
    const box = newBox();
    await start(box);
    expect((await runCli(box, ['install', 'claude', '--scope', 'project'])).code).toBe(0);
    const file = sharedFile(box);
    writeFileSync(file, readFileSync(file, 'utf8').replaceAll('"recap-hook claude"', JSON.stringify(`${process.execPath} ${HOOK} claude`)));
    const check = await claudeHooksCheck(box, withHookOnPath(box));
    expect(check.ok).toBe(false);
    expect(check.detail).toContain('names a path of this machine');
    expect(check.detail).toContain('run recap install claude --scope project again');
  });
});
