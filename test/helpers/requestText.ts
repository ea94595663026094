// What a scripted model was shown: every string of a request body, unescaped, and a check
// that it holds a text (failing with what it does hold).
import { expect } from 'vitest';

/** Every string a request body holds, one after another: the text the model was shown, unescaped. */
export function stringsOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(stringsOf).join('\n');
  if (value !== null && typeof value === 'object') return Object.values(value).map(stringsOf).join('\n');
  return '';
}

export function expectIn(haystack: string, needle: string, where: string): void {
  expect(haystack.includes(needle), `${where} should contain ${JSON.stringify(needle)}\n--- it holds\n${haystack.slice(0, 8000)}`).toBe(true);
}
