// Text handed to an agent's model as context, made to fit the agent's limit: over it, the
// agents hand the model a short preview and a file to read, which a tripped gate denies.
// Each adapter declares its limit (AgentFacts.contextLimit); this is where it is measured.

/** A length the agent measures in characters (UTF-16 code units, as JavaScript counts) or in UTF-8 bytes. */
export type ContextLimit = { max: number; unit: 'chars' | 'bytes' };

const encoder = new TextEncoder();

export function lengthIn(text: string, unit: ContextLimit['unit']): number {
  return unit === 'chars' ? text.length : encoder.encode(text).length;
}

export const fits = (text: string, limit: ContextLimit | undefined): boolean => limit === undefined || lengthIn(text, limit.unit) <= limit.max;

/**
 * The text, or its head and a closing line when it does not fit: the last resort, for text
 * whose own renderer could not make it fit. `more` says where the whole text is.
 */
export function cutToFit(text: string, limit: ContextLimit | undefined, more: string): string {
  if (fits(text, limit)) return text;
  const { max, unit } = limit!;
  const tail = `\n\n[recap: cut at ${max} ${unit === 'chars' ? 'characters' : 'bytes'}; ${more}]`;
  let end = Math.max(0, Math.min(text.length, max - lengthIn(tail, unit)));
  // Bytes: each character is 1 to 4 of them; shrink until it fits.
  while (end > 0 && lengthIn(text.slice(0, end), unit) + lengthIn(tail, unit) > max) end -= Math.max(1, Math.ceil(end / 16));
  // Never half a surrogate pair.
  if (end > 0 && /[\uD800-\uDBFF]/.test(text.charAt(end - 1))) end -= 1;
  return `${text.slice(0, Math.max(0, end))}${tail}`;
}
