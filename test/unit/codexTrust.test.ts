// The hash Codex trusts a hook by, as recap's installer computes it: checked against hashes
// Codex 0.169.0 itself reported (`codex app-server`, hooks/list currentHash).
import { describe, expect, it } from 'vitest';
import { handlerHash, handlerIdentity, snakeEvent, trustKey } from '../../src/agents/codex/trust.js';

describe("a Codex hook handler's trust hash", () => {
  it('is the SHA-256 of the compact, key-sorted identity (the worked example)', () => {
    const handler = { type: 'command' as const, command: '/usr/local/bin/recap-hook --agent codex', timeout: 10 };
    expect(handlerIdentity('PreToolUse', '*', handler)).toBe(
      '{"event_name":"pre_tool_use","hooks":[{"async":false,"command":"/usr/local/bin/recap-hook --agent codex","timeout":10,"type":"command"}],"matcher":"*"}',
    );
    expect(handlerHash('PreToolUse', '*', handler)).toBe('sha256:79988e03dc2260c6f79b5b45aa1d42c3cfe309ee55ddaf36a352a9a7018c053e');
  });

  it('leaves out the matcher of UserPromptSubmit, which Codex ignores', () => {
    const handler = { type: 'command' as const, command: '/usr/local/bin/recap-hook --agent codex', timeout: 10 };
    expect(handlerHash('UserPromptSubmit', undefined, handler)).toBe('sha256:c7d129b7fc39f6208979d125f0482e9a4e3dc75155f7442efc54e51dca35c1f1');
    expect(handlerHash('UserPromptSubmit', '*', handler)).toBe(handlerHash('UserPromptSubmit', undefined, handler));
  });

  it('holds additionalContextLimit when it is set, and no matcher when there is none', () => {
    const start = { type: 'command' as const, command: '/bin/true y', timeout: 10, additionalContextLimit: 0 };
    expect(handlerHash('SessionStart', undefined, start)).toBe('sha256:70fa169a6918e00ecd25a8b98fda7ac9faefc1ad9f6c157f8ade228817e99915');
    const pre = { type: 'command' as const, command: '/bin/true x', timeout: 10 };
    expect(handlerHash('PreToolUse', '*', pre)).toBe('sha256:a0059523299274f94d00d09d21a03741b4a87b2f0562cf3210fc7675901b3f90');
  });

  it('changes with the command, the timeout and the matcher', () => {
    const base = { type: 'command' as const, command: '/bin/true x', timeout: 10 };
    const hash = handlerHash('PreToolUse', '*', base);
    expect(handlerHash('PreToolUse', '*', { ...base, command: '/bin/true z' })).not.toBe(hash);
    expect(handlerHash('PreToolUse', '*', { ...base, timeout: 11 })).not.toBe(hash);
    expect(handlerHash('PreToolUse', 'Bash', base)).not.toBe(hash);
    // No timeout is Codex's default of 600 s.
    expect(handlerHash('PreToolUse', '*', { type: 'command', command: '/bin/true x' })).toBe(handlerHash('PreToolUse', '*', { ...base, timeout: 600 }));
  });
});

describe('a trust key', () => {
  it('names the file, the event in snake case, the group and the handler', () => {
    expect(snakeEvent('UserPromptSubmit')).toBe('user_prompt_submit');
    expect(trustKey('/home/u/.codex/hooks.json', 'PreToolUse', 1, 0)).toBe('/home/u/.codex/hooks.json:pre_tool_use:1:0');
  });
});
