// A prompt too large to judge whole still counts: from the first bytes of a UserPromptSubmit
// payload (the part kept before the size limit), the payload is rebuilt with the prompt cut
// there, so the daemon records and counts what arrived (a lower bound that trips any
// threshold) instead of nothing. Node built-ins only: the hook client uses it.

/** A JSON string field's value at the object's top level, by its name. */
function stringField(text: string, name: string): string | undefined {
  // A quote inside a JSON string is escaped, so `"name":` cannot match inside a value.
  const match = new RegExp(`"${name}"\\s*:\\s*("(?:[^"\\\\]|\\\\.)*")`).exec(text);
  if (!match) return undefined;
  try {
    return JSON.parse(match[1]!) as string;
  } catch {
    return undefined;
  }
}

/** The text of a JSON string literal from after its opening quote: whole if it ends, else as far as it goes. */
function cutString(body: string): string | undefined {
  for (let i = 0; i < body.length; i += 1) {
    if (body[i] === '\\') i += 1;
    else if (body[i] === '"') return decode(body.slice(0, i));
  }
  return decode(body);
}

function decode(body: string): string | undefined {
  // A cut may fall inside an escape (`\`, `\u00`): drop up to the escape's length and retry.
  for (let drop = 0; drop <= 6 && drop <= body.length; drop += 1) {
    try {
      return JSON.parse(`"${body.slice(0, body.length - drop)}"`) as string;
    } catch {
      // Try one character less.
    }
  }
  return undefined;
}

/** The UserPromptSubmit payload with the prompt as far as it arrived, or undefined. */
export function truncatedPrompt(prefix: string): Record<string, unknown> | undefined {
  const start = /"prompt"\s*:\s*"/.exec(prefix);
  if (!start) return undefined;
  // The fields before the prompt (Claude Code sends them first); a huge prompt is not searched.
  const before = prefix.slice(0, start.index);
  if (stringField(before, 'hook_event_name') !== 'UserPromptSubmit') return undefined;
  const prompt = cutString(prefix.slice(start.index + start[0].length));
  if (prompt === undefined) return undefined;
  const payload: Record<string, unknown> = { hook_event_name: 'UserPromptSubmit', prompt };
  for (const name of ['session_id', 'transcript_path', 'cwd', 'permission_mode', 'agent_id', 'agent_type']) {
    const value = stringField(before, name);
    if (value !== undefined) payload[name] = value;
  }
  return payload;
}
