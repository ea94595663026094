// The markdown structure of a summary: which lines are real headings and what text belongs
// to each. A heading inside a code fence or an HTML comment is not one, and the text of a
// comment is nobody's body: a renderer hides it, so it cannot fill a section.

export type Heading = { level: number; key: string; line: number };

const ATX_HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/** Heading text compared case-insensitively, with a trailing colon and extra spaces ignored. */
export function headingKey(text: string): string {
  return text.trim().replace(/:$/, '').trim().replace(/\s+/g, ' ').toLowerCase();
}

/** The lines with every HTML comment blanked out (line breaks kept, so line numbers hold). */
export function withoutComments(lines: string[]): string[] {
  const text = lines.join('\n').replace(/<!--[\s\S]*?(?:-->|$)/g, (comment) => comment.replace(/[^\n]/g, ''));
  return text.split('\n');
}

export type Structure = {
  /** The lines as a reader sees them: comments blanked. */
  lines: string[];
  headings: Heading[];
  /** Whether each line is inside a fenced code block (the fence lines included). */
  code: boolean[];
};

export function structure(raw: string[]): Structure {
  const lines = withoutComments(raw);
  const headings: Heading[] = [];
  const code: boolean[] = [];
  let fence: string | undefined;
  lines.forEach((line, index) => {
    const fenceMatch = FENCE.exec(line);
    if (fenceMatch?.[1]) {
      const marker = fenceMatch[1];
      const info = fenceMatch[2]?.trim() ?? '';
      if (fence === undefined) fence = marker;
      // A closing fence has no info string (CommonMark); "```md" inside a block is text.
      else if (marker[0] === fence[0] && marker.length >= fence.length && info === '') fence = undefined;
      code.push(true);
      return;
    }
    code.push(fence !== undefined);
    if (fence !== undefined) return;
    const match = ATX_HEADING.exec(line);
    if (match?.[1] && match[2] !== undefined) headings.push({ level: match[1].length, key: headingKey(match[2]), line: index });
  });
  return { lines, headings, code };
}

/** The lines of a heading's body: up to the next heading at the same or a higher level. */
export function bodyRange(s: Structure, at: number): { from: number; to: number } {
  const heading = s.headings[at]!;
  const next = s.headings.slice(at + 1).find((h) => h.level <= heading.level);
  return { from: heading.line + 1, to: next?.line ?? s.lines.length };
}

/** The heading, among `candidates`, whose body holds heading `at`: the one it is nested in. */
export function enclosing(s: Structure, at: number, candidates: readonly number[]): number | undefined {
  const line = s.headings[at]!.line;
  return candidates.find((c) => {
    if (c === at) return false;
    const { from, to } = bodyRange(s, c);
    return line >= from && line < to;
  });
}
