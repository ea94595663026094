// JSON with comments, as several agents write their settings.

/**
 * The text without its comments (`//` to the end of the line, `/* ... *\/`), strings left
 * as they are, and whether there were any: what strip-json-comments does, which
 * Qwen Code, Gemini CLI and Copilot CLI read their settings with.
 */
export function withoutComments(text: string): { json: string; comments: boolean } {
  const parts: string[] = [];
  let from = 0;
  let comments = false;
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      i += 1;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      i += 1;
    } else if (c === '/' && (text[i + 1] === '/' || text[i + 1] === '*')) {
      comments = true;
      parts.push(text.slice(from, i), ' ');
      const line = text[i + 1] === '/';
      const end = line ? text.indexOf('\n', i) : text.indexOf('*/', i + 2);
      i = end === -1 ? text.length : line ? end : end + 2;
      from = i;
    } else i += 1;
  }
  parts.push(text.slice(from));
  return { json: parts.join(''), comments };
}
