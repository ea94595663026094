// How the noise check sorts a token: what a genuine summary names counts as a word, what is
// pasted data or typed at random does not.
import { describe, expect, it } from 'vitest';
import { tokenKind } from '../../src/events/summaryNoise.js';

describe('tokenKind', () => {
  it.each([
    'parser',
    'Brussels',
    "user's",
    'src/events/summaryValidator.ts',
    'https://github.com/example/recap/issues/412',
    '--max-warnings',
    'v2.4.1',
    'getUserById',
    'XMLHttpRequest',
    'STM32L476',
    '`HAL_I2C_Mem_Read`',
    'déploiement',
    'strength',
  ])('given %s, then it is a word', (token) => {
    expect(tokenKind(token)).toBe('word');
  });

  it.each(['3f9c2e1', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 'aGVsbG8gd29ybGQ=', 'xK9fQ2mZ', '7f45', 'qzvbx', 'wvnxq'])(
    'given %s, then it is gibberish',
    (token) => {
      expect(tokenKind(token)).toBe('gibberish');
    },
  );

  it.each(['2024', '14.10', '50,000', '62%', '0x1F', 'e2e', '7f'])('given %s, then it is a number', (token) => {
    expect(tokenKind(token)).toBe('number');
  });

  it.each(['...', '---', '!!!', '🚀', '✅', '→', '|---|---|'])('given %s, then it is punctuation', (token) => {
    expect(tokenKind(token)).toBe('punctuation');
  });
});
