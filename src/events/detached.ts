// A piece cut from a summary's text, as a string of its own. V8 makes a substring of 13
// characters or more (from slice, split, trim or a regex's match) a view into the string it
// was cut from, which keeps that whole string alive: a gist or a reference's reason cut from
// a submitted summary kept the summary's whole text in the projection's chain for as long as
// the daemon ran (a few kilobytes for each summary accepted since it started). A clone copies
// the characters.
export function detached(cut: string): string {
  return structuredClone(cut);
}
