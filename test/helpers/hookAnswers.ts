// The daemon's answers to Claude Code hook payloads (the hook op), read as a test reads them.
import { expect } from 'vitest';

export type HookAnswer = { stdout: string; exitCode: number };

/** The answer that lets a call through without a word. */
export const NOTHING: HookAnswer = { stdout: '', exitCode: 0 };

/** The reason of a PreToolUse deny (the answer must be one). */
export function deniedReason(answer: HookAnswer): string {
  expect(answer.exitCode).toBe(0);
  expect(answer.stdout.startsWith('{')).toBe(true);
  const output = JSON.parse(answer.stdout) as { hookSpecificOutput: Record<string, string> };
  expect(output.hookSpecificOutput).toMatchObject({ hookEventName: 'PreToolUse', permissionDecision: 'deny' });
  return output.hookSpecificOutput.permissionDecisionReason!;
}

/** The additionalContext an answer to `event` carries. */
export function additionalContext(answer: HookAnswer, event: string): string {
  expect(answer.exitCode).toBe(0);
  const output = JSON.parse(answer.stdout) as { hookSpecificOutput: Record<string, string> };
  expect(output.hookSpecificOutput.hookEventName).toBe(event);
  return output.hookSpecificOutput.additionalContext!;
}
