// Qwen Code's PreCompact through the hook command `recap install qwen` writes (the launcher,
// bin/recap-hook.sh, and recap-hook itself), fed the payloads the real binary sends before an
// auto-compression and a `/compress` (test/fixtures/agents/qwen/PreCompact-*.json), against a
// real daemon: once a summary is accepted the answer is recap's instructions for Qwen Code's
// own summary, as hookSpecificOutput.additionalContext (which Qwen Code appends to its
// compression request), tripped gate or not; with no summary it is nothing; with the daemon
// down it is nothing too, whatever ON_DAEMON_DOWN and the verdict file say. And `recap install
// qwen` registers the hook, which `recap doctor` expects.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Check } from '../../src/common/check.js';
import { jobIdFor } from '../../src/common/jobs.js';
import { removeSandbox, runCli, sandbox, startDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { FIXTURE_ROOT, FIXTURES } from '../helpers/hookRecorder.js';
import { goodSummary, notes, prose } from '../helpers/text.js';
import { hookCommands, runHookCommand, type HookCommandRun } from '../helpers/hookCommand.js';

const FIXTURE_SESSION = '4a0b4ae9-d80c-4043-ba1f-921033014e8d';
const SESSION = 'qwen-precompact';

const run = runHookCommand;
const COMMANDS = hookCommands('qwen');

/** A real payload of Qwen Code's, moved into the sandbox and this test's session. */
function fixture(box: Sandbox, name: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  const text = readFileSync(join(FIXTURES, 'qwen', `${name}.json`), 'utf8')
    .replaceAll(`${FIXTURE_ROOT}/project`, box.project)
    .replaceAll(`${FIXTURE_ROOT}/home`, box.dir)
    .replaceAll(FIXTURE_SESSION, SESSION);
  return { ...(JSON.parse(text) as Record<string, unknown>), ...fields };
}
const TRIGGERS = ['PreCompact-auto', 'PreCompact-manual'] as const;
const prompt = (box: Sandbox, text: string) => fixture(box, 'UserPromptSubmit', { prompt: text, submitted_prompt: text });

/** No opinion: exit 0, no stdout (never `allow`, nor a decision). */
function expectNothing(answer: HookCommandRun): void {
  expect(answer.code, answer.stderr).toBe(0);
  expect(answer.stdout).toBe('');
}

/** The instructions of a PreCompact answer: additionalContext, and nothing beside it that could stop Qwen Code. */
function instructions(answer: HookCommandRun): string {
  expect(answer.code, answer.stderr).toBe(0);
  const output = JSON.parse(answer.stdout) as { hookSpecificOutput?: Record<string, unknown> };
  expect(Object.keys(output)).toEqual(['hookSpecificOutput']);
  expect(output.hookSpecificOutput).toEqual({ hookEventName: 'PreCompact', additionalContext: expect.any(String) });
  return output.hookSpecificOutput!.additionalContext as string;
}

const FILES = '## Files\n- read src/parser.ts:1-2 — the parser the decisions are about\n- ref docs/config.md — where the file format is described';

describe("Qwen Code's PreCompact through recap's hook command", () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  let job: string;
  const status = async () => JSON.parse((await runCli(box, ['status', '--json'])).stdout) as { tripped: boolean; summaries: number; unsummarizedInteractions: number };

  beforeAll(async () => {
    box = sandbox();
    job = jobIdFor(box.project);
    mkdirSync(join(box.project, 'src'));
    mkdirSync(join(box.project, 'docs'));
    writeFileSync(join(box.project, 'src', 'parser.ts'), 'export function parse(text: string) {\n  return text.split("\\n");\n}\n');
    writeFileSync(join(box.project, 'docs', 'config.md'), '# The config file\n');
    daemon = await startDaemon(box);
  });
  afterAll(async () => {
    await daemon?.stop();
    if (box) removeSandbox(box);
  });

  it.each(Object.entries(COMMANDS))('with no accepted summary, a gate open or tripped, answers nothing (%s)', async (_name, command) => {
    expectNothing(await run(box, command, fixture(box, 'PreCompact-auto')));
    // A prompt over the threshold trips the gate; a compaction still gets nothing to keep, and no block.
    expect((await run(box, command, prompt(box, prose(30)))).code).toBe(0);
    expectNothing(await run(box, command, fixture(box, 'PreCompact-manual')));
  });

  it.each(Object.entries(COMMANDS))(
    "after an accepted summary, answers with additionalContext asking Qwen Code's summary to keep its decisions, directives and files (%s)",
    async (_name, command) => {
      if ((await status()).summaries === 0) {
        const submitted = await runCli(box, ['submit'], { input: `${goodSummary()}\n\n${FILES}` });
        expect(submitted.code, submitted.stdout + submitted.stderr).toBe(0);
      }
      for (const trigger of TRIGGERS) {
        const text = instructions(await run(box, command, fixture(box, trigger)));
        expect(text).toMatch(/^recap: when you summarize this conversation, keep what recap's summary #\d+ \("[^"]+"\) records/);
        // Within what Qwen Code keeps, counting each < and > as four.
        expect(text.replace(/[<>]/g, '____').length).toBeLessThanOrEqual(4000);
        expect(text).toContain('The decisions and their reasons (its "Questions & Decisions" section):');
        // goodSummary's Questions & Decisions and User Requests sections, sentence by sentence.
        for (const k of [3, 4, 5]) expect(text).toContain(`- ${notes(1, k)}`);
        expect(text).toContain(`The user's directives (its "User Requests" section):`);
        for (const k of [0, 1, 2]) expect(text).toContain(notes(1, k));
        expect(text).toContain('- read src/parser.ts:1-2 — the parser the decisions are about\n- ref docs/config.md — where the file format is described');
        expect(text).not.toContain(notes(1, 12)); // Current State: not a decision, not a directive.
      }
    },
  );

  it('still steers on a tripped gate, and the gate stays as it was', async () => {
    for (let i = 0; i < 3 && !(await status()).tripped; i += 1) await run(box, COMMANDS.launcher, prompt(box, prose(30)));
    const before = await status();
    expect(before).toMatchObject({ tripped: true, summaries: 1 });
    expect(instructions(await run(box, COMMANDS.launcher, fixture(box, 'PreCompact-auto')))).toContain(`- ${notes(1, 4)}`);
    expect(await status()).toMatchObject(before);
  });

  it.each(Object.entries(COMMANDS))(
    'with the daemon down, ON_DAEMON_DOWN=closed and the job last known tripped, answers nothing where a tool call is denied (%s)',
    async (_name, command) => {
      await daemon.stop();
      writeFileSync(box.config, 'ON_DAEMON_DOWN=closed\n');
      // A data folder that is a file: the daemon recap-hook starts exits at once; the verdict file beside the socket stays.
      writeFileSync(join(box.dir, 'not-a-folder'), 'x\n');
      const down = { RECAP_DATA_DIR: join(box.dir, 'not-a-folder'), RECAP_HOOK_DEADLINE_MS: '3000' };
      const denied = await run(box, command, fixture(box, 'PreToolUse-read_file'), down);
      expect(denied.code).toBe(0);
      expect(JSON.parse(denied.stdout)).toMatchObject({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny' } });
      expect(denied.stdout).toContain(`it last knew job ${job} as tripped`);
      for (const trigger of TRIGGERS) expectNothing(await run(box, command, fixture(box, trigger), down));
    },
  );
});

describe('recap install qwen and recap doctor, for PreCompact', () => {
  let box: Sandbox;
  beforeAll(() => {
    box = sandbox();
  });
  afterAll(() => removeSandbox(box));

  const settingsFile = () => join(box.dir, '.qwen', 'settings.json');
  const hooksCheck = async (): Promise<Check | undefined> => {
    const { checks } = JSON.parse((await runCli(box, ['doctor', '--json'])).stdout) as { checks: Check[] };
    return checks.find((c) => c.name === 'qwen hooks');
  };

  it('registers PreCompact for every trigger; an install from before it is named by doctor, and installing again adds it', async () => {
    expect((await runCli(box, ['install', 'qwen'])).code).toBe(0);
    const settings = JSON.parse(readFileSync(settingsFile(), 'utf8')) as { hooks: Record<string, { matcher?: string; hooks: { command: string }[] }[]> };
    expect(settings.hooks.PreCompact).toEqual([{ hooks: [settings.hooks.SessionStart![0]!.hooks[0]] }]);
    expect(await hooksCheck()).toMatchObject({ ok: true });

    delete (settings.hooks as Record<string, unknown>).PreCompact;
    writeFileSync(settingsFile(), `${JSON.stringify(settings, null, 2)}\n`);
    expect(await hooksCheck()).toMatchObject({ ok: false, detail: 'no PreCompact hook', fix: 'recap install qwen' });
    expect((await runCli(box, ['install', 'qwen'])).code).toBe(0);
    expect(await hooksCheck()).toMatchObject({ ok: true });
  });
});
