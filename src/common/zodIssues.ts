import type { z } from 'zod';

/**
 * A zod error as one line, a problem per field ("field: what is wrong", or the message alone
 * when it names the field itself: "job is empty"), the first one of each field only: an empty
 * name is not also told it holds a wrong character. zod's own words for a number out of range
 * are said plainly.
 */
export function describeIssues(error: z.ZodError): string {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const issue of error.issues) {
    const path = issue.path.join('.');
    if (seen.has(path)) continue;
    seen.add(path);
    const message = plainly(issue);
    const field = String(issue.path.at(-1) ?? '');
    lines.push(path === '' || message.startsWith(`${field} `) ? message : `${path}: ${message}`);
  }
  return lines.join('; ');
}

/** "Too big: expected int to be <=9007199254740991" as "at most 9007199254740991". */
function plainly(issue: z.core.$ZodIssue): string {
  // zod's own words only: a message the schema gives is kept as it is.
  if ((issue.code === 'too_big' || issue.code === 'too_small') && ['number', 'int'].includes(issue.origin) && /^Too (?:big|small)/.test(issue.message)) {
    const bound = Number(issue.code === 'too_big' ? issue.maximum : issue.minimum);
    const exclusive = !issue.inclusive;
    return issue.code === 'too_big' ? `must be ${exclusive ? 'under' : 'at most'} ${bound}` : `must be ${exclusive ? 'over' : 'at least'} ${bound}`;
  }
  return issue.message;
}
