// Qwen Code's PreCompact in recap's terms: the real payloads (an auto-compression and a
// `/compress`) read as a compaction about to begin, and the answer in the one form Qwen Code
// 0.24.4 hands its compression request (hookSpecificOutput.additionalContext), within the
// 4,000 characters it keeps as it counts them (each < and > written as four), never a block.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NOTHING } from '../../src/agents/facts.js';
import { QWEN_STEER_MAX, qwenFacts, steerFitted } from '../../src/agents/qwen/facts.js';
import { parseQwenHook } from '../../src/agents/qwen/hook.js';
import { commandHook, RECAP_EVENTS, withRecap } from '../../src/agents/qwen/settings.js';
import { compactSteer, STEER_MAX_CHARS } from '../../src/events/compactSteer.js';
import { DEFAULT_CONFIG } from '../../src/events/config.js';
import { FIXTURES } from '../helpers/hookRecorder.js';

const fixture = (name: string): Record<string, unknown> => JSON.parse(readFileSync(join(FIXTURES, 'qwen', `${name}.json`), 'utf8'));

/** The text as Qwen Code's compression request gets it: `<` and `>` escaped, trimmed, its first 4,000 characters. */
const asQwenKeepsIt = (text: string) => text.replace(/</g, '&lt;').replace(/>/g, '&gt;').trim().slice(0, 4000);

/** The additionalContext of a PreCompact answer; fails on any other shape. */
function instructionsOf(answer: { stdout: string; exitCode: number }): string {
  expect(answer.exitCode).toBe(0);
  const output = JSON.parse(answer.stdout) as Record<string, unknown>;
  expect(Object.keys(output)).toEqual(['hookSpecificOutput']);
  const specific = output.hookSpecificOutput as Record<string, unknown>;
  expect(Object.keys(specific).sort()).toEqual(['additionalContext', 'hookEventName']);
  expect(specific.hookEventName).toBe('PreCompact');
  return specific.additionalContext as string;
}

/** Renderer output at its bound, one line of it per decision. */
function longInstructions(decision: (i: number) => string): string {
  const lines = Array.from({ length: 80 }, (_, i) => `- ${decision(i)}`).join('\n');
  return compactSteer({ seq: 4, text: `## Questions & Decisions\n${lines}` }, { REQUIRED_SECTIONS: DEFAULT_CONFIG.REQUIRED_SECTIONS })!;
}

describe("Qwen Code's PreCompact", () => {
  it.each(['PreCompact-auto', 'PreCompact-manual'])('%s, as the real binary sent it, reads as a compaction about to begin', (name) => {
    expect(parseQwenHook(fixture(name))).toMatchObject({ ok: true, call: { kind: 'compacting' }, caller: { session: expect.any(String), cwd: '/tmp/FIXTURE/project' } });
  });

  it('of an unexpected shape is no tool call, so nothing denies it', () => {
    expect(parseQwenHook({ ...fixture('PreCompact-auto'), trigger: 42 })).toMatchObject({ ok: false, event: 'PreCompact', toolCall: false });
    expect(qwenFacts.events.PreCompact).toBe('compacting');
  });

  it('is answered with the instructions as hookSpecificOutput.additionalContext, with no decision and nothing that stops Qwen Code', () => {
    expect(instructionsOf(qwenFacts.steer!('recap: keep this'))).toBe('recap: keep this');
    expect(qwenFacts.steer!(' \n ')).toEqual(NOTHING);
  });

  it("the renderer's longest instructions reach Qwen Code's compression request whole", () => {
    const text = longInstructions((i) => `Decision ${i} keeps the reload path cheap because the daemon reads the file on every signal.`);
    expect(text.length).toBeGreaterThan(STEER_MAX_CHARS - 300);
    expect(text.length).toBeLessThanOrEqual(QWEN_STEER_MAX);
    const sent = instructionsOf(qwenFacts.steer!(text));
    expect(sent).toBe(text);
    expect(asQwenKeepsIt(sent)).toBe(text);
  });

  it('instructions full of < and >, which Qwen Code counts four times, lose whole lines at the end, with a line saying so, not a cut mid-line', () => {
    const text = longInstructions((i) => `Decision ${i}: the parser returns Map<string, Entry<Value>> and never Array<Entry>.`);
    expect(text.length).toBeLessThanOrEqual(STEER_MAX_CHARS);
    const sent = instructionsOf(qwenFacts.steer!(text));
    expect(asQwenKeepsIt(sent)).toBe(sent.replace(/</g, '&lt;').replace(/>/g, '&gt;'));
    const lines = sent.split('\n');
    const note = lines.at(-1)!;
    expect(note).toMatch(/^\(recap left out (\d+) more lines to fit Qwen Code's limit\)$/);
    // Every other line is one of the instructions' own, whole and in order.
    expect(text.startsWith(lines.slice(0, -1).join('\n'))).toBe(true);
    const left = text.split('\n').length - (lines.length - 1);
    expect(note).toContain(`left out ${left} more lines`);
    expect(lines.at(-2)).toMatch(/^- Decision \d+: /);
  });

  it('lines left out never leave a group title or a blank line standing at the end', () => {
    const lines = Array.from({ length: 40 }, (_, i) => `- Decision ${i}: Map<string, Entry<Value>> and never Array<Entry>, whatever the caller.`).join('\n');
    const refs = Array.from({ length: 30 }, (_, i) => ({
      mode: 'ref' as const,
      path: `src/file${i}.ts`,
      why: 'one of the files the work touched',
      sha256: 'a'.repeat(64),
      tokens: 40,
    }));
    const text = compactSteer({ seq: 4, text: `## Questions & Decisions\n${lines}`, files: { seq: 4, refs } }, { REQUIRED_SECTIONS: DEFAULT_CONFIG.REQUIRED_SECTIONS })!;
    for (let cut = 0; cut < 20; cut += 1) {
      // As many < and > again in the head, line by line: each cut lands somewhere else.
      const sent = steerFitted(`${'<>'.repeat(cut * 12)}\n${text}`);
      expect(asQwenKeepsIt(sent)).toBe(sent.replace(/</g, '&lt;').replace(/>/g, '&gt;'));
      const last = sent.split('\n').at(-2)!;
      expect(last, sent.slice(-300)).toMatch(/^- /);
    }
  });

  it('a single line longer than the limit is cut by characters, never into half a pair or past the limit', () => {
    const sent = steerFitted(`recap: ${'<😀>'.repeat(2000)}`);
    expect(sent.replace(/</g, '&lt;').replace(/>/g, '&gt;').length).toBeLessThanOrEqual(QWEN_STEER_MAX);
    expect(sent.length).toBeGreaterThan(1000);
    expect(sent).toMatch(/^recap: (<😀>)*(<😀?)?$/u);
  });

  it('`recap install qwen` registers PreCompact for every trigger', () => {
    expect(RECAP_EVENTS).toContainEqual({ event: 'PreCompact' });
    const entry = commandHook('/opt/recap/bin/recap-hook.cjs', '/usr/bin/node');
    expect(withRecap({}, entry).hooks!.PreCompact).toEqual([{ hooks: [entry] }]);
  });
});
