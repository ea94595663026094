import type { z } from 'zod';

/** A zod error as one line per problem: "field: what is wrong". */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => (i.path.length > 0 ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
}
