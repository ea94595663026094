// JSON from outside recap (socket frames, HTTP bodies, transcripts) with every string well
// formed. Valid UTF-8 cannot hold a lone surrogate, but a JSON escape such as \ud800 can
// make one. The log stores strings as UTF-8, where a lone surrogate becomes U+FFFD: kept
// as it came, it would make the live state differ from a replay, and a summary's hash from
// its stored text. So it becomes U+FFFD here, before anything is decided on it.
// Node built-ins only: the hook client uses it.

/** A \u escape of a surrogate (D800-DFFF): the only way a lone one gets into parsed JSON. */
const SURROGATE_ESCAPE = /\\u[dD][89abcdefABCDEF]/;

export function parseJson(text: string): unknown {
  return SURROGATE_ESCAPE.test(text) ? JSON.parse(text, wellFormed) : JSON.parse(text);
}

function wellFormed(_key: string, value: unknown): unknown {
  if (typeof value === 'string') return value.toWellFormed();
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  // Keys too: an object with an ill-formed key is rebuilt.
  if (Object.keys(value).every((key) => key.isWellFormed())) return value;
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [key.toWellFormed(), v]));
}
