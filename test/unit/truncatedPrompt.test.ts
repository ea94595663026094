// A UserPromptSubmit payload cut at the size limit, rebuilt with its prompt as far as it came.
import { describe, expect, it } from 'vitest';
import { truncatedPrompt } from '../../src/common/truncatedPrompt.js';

const head = '{"session_id":"s-1","transcript_path":"/t/x.jsonl","cwd":"/home/dev/p","permission_mode":"default","hook_event_name":"UserPromptSubmit","prompt":"';

describe('truncatedPrompt', () => {
  it('keeps the fields before the prompt and the prompt as far as it arrived', () => {
    expect(truncatedPrompt(`${head}fix the \\"parser\\" in src/a.ts and`)).toEqual({
      hook_event_name: 'UserPromptSubmit',
      session_id: 's-1',
      transcript_path: '/t/x.jsonl',
      cwd: '/home/dev/p',
      permission_mode: 'default',
      prompt: 'fix the "parser" in src/a.ts and',
    });
  });

  it('drops an escape cut in the middle', () => {
    for (const cut of ['abc\\', 'abc\\u00', 'abc\\u00e']) expect(truncatedPrompt(`${head}${cut}`)?.prompt).toBe('abc');
  });

  it('takes a prompt that ended whole before the cut', () => {
    expect(truncatedPrompt(`${head}done","other":"${'x'.repeat(100)}`)?.prompt).toBe('done');
  });

  it('is undefined for another event or no prompt', () => {
    expect(truncatedPrompt(head.replace('UserPromptSubmit', 'PreToolUse'))).toBeUndefined();
    expect(truncatedPrompt('{"hook_event_name":"UserPromptSubmit","cwd":"/x"')).toBeUndefined();
  });

  it('is not fooled by a quoted field name inside a value', () => {
    const sneaky = '{"cwd":"/a\\",\\"hook_event_name\\":\\"UserPromptSubmit","hook_event_name":"PreToolUse","prompt":"x';
    expect(truncatedPrompt(sneaky)).toBeUndefined();
  });
});
