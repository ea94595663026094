// SCOPE=marked through the real recap-hook and the real daemon: an unmarked project's hooks
// count and record nothing and let tools through; a project `recap init` marked is gated; an
// agent that removes `.recap/` from a gated project does not get out, and the way out works.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeSandbox, runCli, sandbox, startDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { hookCommands, runHookCommand } from '../helpers/hookCommand.js';
import { goodSummary, prose } from '../helpers/text.js';

const HOOK = hookCommands('claude')['recap-hook'];

const common = (cwd: string) => ({ session_id: `session-${cwd.length}-${cwd.at(-1)}`, transcript_path: join(cwd, 't.jsonl'), cwd, permission_mode: 'default' });
const prompt = (cwd: string, text: string) => ({ ...common(cwd), hook_event_name: 'UserPromptSubmit', prompt: text });
const tool = (cwd: string, name: string, input: unknown) => ({ ...common(cwd), hook_event_name: 'PreToolUse', tool_name: name, tool_input: input, tool_use_id: 'toolu_01' });

/** The decision recap-hook answered a PreToolUse with: deny, or allow (nothing said). */
function decisionOf(stdout: string): string {
  if (stdout.trim() === '') return 'allow';
  const answer = JSON.parse(stdout) as { hookSpecificOutput?: { permissionDecision?: string } };
  return answer.hookSpecificOutput?.permissionDecision ?? 'allow';
}

describe('SCOPE=marked', () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  let marked: string;

  const hook = async (payload: unknown) => {
    const run = await runHookCommand(box, HOOK, payload);
    expect(run.code, run.stderr).toBe(0);
    return run.stdout;
  };
  const status = async (cwd: string) =>
    JSON.parse((await runCli(box, ['status', '--json'], { cwd })).stdout) as { tripped: boolean; unsummarizedTokens: number; unsummarizedInteractions: number };

  beforeAll(async () => {
    box = sandbox();
    writeFileSync(box.config, 'SCOPE=marked\n');
    marked = join(box.dir, 'marked');
    mkdirSync(join(marked, '.git'), { recursive: true });
    daemon = await startDaemon(box);
    const init = await runCli(box, ['init'], { cwd: marked });
    expect(init.stdout).toContain(`made ${join(marked, '.recap')}`);
  });
  afterAll(() => closeSandbox(box, daemon));

  it('records nothing of a prompt in an unmarked project, and lets its tools through', async () => {
    await hook(prompt(box.project, prose(40)));
    expect(await status(box.project)).toMatchObject({ unsummarizedTokens: 0, unsummarizedInteractions: 0 });
    expect(decisionOf(await hook(tool(box.project, 'Read', { file_path: join(box.project, 'a.ts') })))).toBe('allow');
    const exported = (await runCli(box, ['export'])).stdout;
    expect(exported).not.toContain('InteractionRecorded');
  });

  it('counts a prompt in a marked project, and the gate trips', async () => {
    await hook(prompt(marked, prose(40)));
    expect(await status(marked)).toMatchObject({ tripped: true, unsummarizedInteractions: 1 });
    expect(decisionOf(await hook(tool(marked, 'Read', { file_path: join(marked, 'a.ts') })))).toBe('deny');
  });

  it('denies the agent removing .recap/ while gated, keeps the job gated once it is gone, and the way out works', async () => {
    expect(decisionOf(await hook(tool(marked, 'Bash', { command: 'rm -rf .recap' })))).toBe('deny');
    // A program the agent ran earlier removed it all the same: the job recap holds stays in scope.
    rmSync(join(marked, '.recap'), { recursive: true });
    expect(decisionOf(await hook(tool(marked, 'Read', { file_path: join(marked, 'a.ts') })))).toBe('deny');
    const submitted = await runCli(box, ['submit'], { cwd: marked, input: goodSummary() });
    expect(submitted.code, submitted.stderr).toBe(0);
    expect(decisionOf(await hook(tool(marked, 'Read', { file_path: join(marked, 'a.ts') })))).toBe('allow');
  });

  it('recap init is idempotent and says how to undo it', async () => {
    const first = await runCli(box, ['init'], { cwd: marked });
    expect(first.stdout).toContain(`made ${join(marked, '.recap')}`);
    const again = await runCli(box, ['init'], { cwd: marked });
    expect(again.stdout).toContain('was there already: nothing changed');
    expect(again.stdout).toContain(`to undo: rm -r ${join(marked, '.recap')}`);
  });
});
