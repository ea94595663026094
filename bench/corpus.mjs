// The texts the benchmarks count and build summaries from: recap's own documents and domain
// code, read whole so that a figure does not move when a page or a file is split.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** README.md and every page of docs/, in a fixed order. */
export function documents(root) {
  const docs = join(root, 'docs');
  const pages = readdirSync(docs, { recursive: true })
    .filter((name) => String(name).endsWith('.md'))
    .sort()
    .map((name) => join(docs, String(name)));
  return [join(root, 'README.md'), ...pages].map((file) => readFileSync(file, 'utf8')).join('\n');
}

/**
 * The domain's built code, in a fixed order (not tokens.js: it names the encodings' special
 * tokens, which the library refuses to count).
 */
export function code(root) {
  const dir = join(root, 'dist', 'events');
  return readdirSync(dir)
    .filter((name) => name.endsWith('.js') && name !== 'tokens.js')
    .sort()
    .map((name) => readFileSync(join(dir, name), 'utf8'))
    .join('\n');
}
