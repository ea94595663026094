// Text the user marks private in a prompt (`<private>...</private>`) is neither stored nor
// counted. An opening tag left unclosed keeps the rest of the text private: a forgotten
// closing tag must not leak what followed it.
const PRIVATE = /<private>[\s\S]*?(?:<\/private>|$)/gi;

/** The text without its private parts. */
export function withoutPrivate(text: string): string {
  // Most prompts have no tag: the common case costs one search.
  if (!/<private>/i.test(text)) return text;
  return text.replace(PRIVATE, '');
}
