// Writes the op table of docs/ARCHITECTURE.md from the socket protocol itself, so the map
// cannot drift from the code: each op's request fields from its zod schema (z.toJSONSchema),
// its answer from the Responses type in src/protocol/protocol.ts, and whether it is the user's
// alone from userCommand. `--check` rewrites nothing and fails when the table in the file is
// not what this makes. It imports dist/: run `npm run build` first (`npm run docs` does not).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as prettier from 'prettier';
import ts from 'typescript';
import { z } from 'zod';

export const BEGIN = '<!-- ops:begin -->';
export const END = '<!-- ops:end -->';
const ROOT = new URL('../', import.meta.url);
export const DOC = fileURLToPath(new URL('docs/ARCHITECTURE.md', ROOT));
export const PROTOCOL_SOURCE = fileURLToPath(new URL('src/protocol/protocol.ts', ROOT));

/** The op the "where" fields are read from: `status` takes exactly them (z.object(where)). */
const WHERE_OP = 'status';

/**
 * The block between the markers: the op table, what "where" stands for, every request field
 * and where the answers' types are declared. `protocol` is src/protocol/protocol.ts as a module
 * (dist's, or the source's under vitest); `source` its text, for the answers' types.
 */
export function opBlock(protocol, source) {
  const { requestSchemas, userCommand } = protocol;
  const ops = Object.keys(requestSchemas);
  const schemas = Object.fromEntries(ops.map((op) => [op, z.toJSONSchema(requestSchemas[op], { io: 'input', unrepresentable: 'any' })]));
  const where = Object.entries(schemas[WHERE_OP].properties ?? {});
  const hasWhere = (op) => where.length > 0 && where.every(([name, schema]) => JSON.stringify(schemas[op].properties?.[name]) === JSON.stringify(schema));
  const { answers, homes } = readResponses(source);

  const rows = ops.map((op) => {
    const schema = schemas[op];
    const required = new Set(schema.required ?? []);
    const own = Object.keys(schema.properties ?? {}).filter((name) => !(hasWhere(op) && where.some(([w]) => w === name)));
    const fields = [...(hasWhere(op) ? ['where'] : []), ...own.map((name) => `\`${name}${required.has(name) ? '' : '?'}\``)];
    const answer = answers.get(op);
    if (answer === undefined) throw new Error(`src/protocol/protocol.ts: Responses has no answer for the op ${op}`);
    return `| \`${op}\` | ${fields.length > 0 ? fields.join(', ') : 'none'} | \`${cell(answer)}\` | ${usersOnly(op, schema, userCommand)} |`;
  });

  const lines = [
    '<!-- Made by `npm run docs` (scripts/docs-tables.mjs) from src/protocol/protocol.ts: change the schemas and run it, do not edit this block. -->',
    '',
    "| op | request fields | answer | the user's only |",
    '| --- | --- | --- | --- |',
    ...rows,
    '',
    `"where" stands for ${where.map(([name]) => `\`${name}?\``).join(', ')}: the fields the daemon finds a request's job by (see [Which job](#which-job)).`,
    '',
    'Request fields (`?`: may be left out):',
    '',
    ...fieldLines(ops, schemas),
    '',
    `Answer types: ${answerTypes(answers, homes)}.`,
  ];
  return lines.join('\n');
}

/** Whether only the user may run the op: always, with one of its switches set, or no. */
function usersOnly(op, schema, userCommand) {
  if (userCommand(op, {}) !== undefined) return 'yes';
  const switches = Object.entries(schema.properties ?? {})
    .filter(([, field]) => field.type === 'boolean')
    .map(([name]) => name)
    .filter((name) => userCommand(op, { [name]: true }) !== undefined);
  return switches.length > 0 ? `with ${switches.map((name) => `\`${name}\``).join(', ')}` : 'no';
}

/** Each field once, with what it takes; a field that takes different values in different ops says which. */
function fieldLines(ops, schemas) {
  const fields = new Map();
  for (const op of ops) {
    for (const [name, schema] of Object.entries(schemas[op].properties ?? {})) {
      const byText = fields.get(name) ?? new Map();
      const text = describe(schema);
      byText.set(text, [...(byText.get(text) ?? []), op]);
      fields.set(name, byText);
    }
  }
  return [...fields].map(([name, byText]) => {
    const texts = [...byText];
    if (texts.length === 1) return `- \`${name}\`: ${texts[0][0]}.`;
    return `- \`${name}\`: ${texts.map(([text, inOps]) => `in ${inOps.map((op) => `\`${op}\``).join(', ')}, ${text}`).join('; ')}.`;
  });
}

/** A field's JSON Schema in words. */
function describe(schema) {
  const base = describeType(schema);
  return schema.default === undefined ? base : `${base}; default ${JSON.stringify(schema.default)}`;
}

function describeType(schema) {
  if (schema.enum) return `one of ${schema.enum.join(', ')}`;
  switch (schema.type) {
    case 'string':
      return text(schema);
    case 'integer':
    case 'number':
      return number(schema);
    case 'boolean':
      return 'true or false';
    case 'array': {
      const most = schema.maxItems !== undefined ? ` of at most ${schema.maxItems}` : '';
      return `a list${most}, each ${describeType(schema.items ?? {})}`;
    }
    case 'object':
      return 'an object';
    default:
      return 'any JSON value';
  }
}

function text(schema) {
  const parts = [];
  // zod writes .startsWith('/') as format starts_with and the pattern ^\/.*
  if (schema.format === 'starts_with' && schema.pattern === '^\\/.*') parts.push('an absolute path');
  else parts.push('text');
  const { minLength: min, maxLength: max } = schema;
  if (min !== undefined && max !== undefined) parts.push(`of ${min} to ${max} characters`);
  else if (max !== undefined) parts.push(`of at most ${max} characters`);
  else if (min !== undefined) parts.push(`of at least ${min} characters`);
  if (schema.pattern !== undefined && schema.format !== 'starts_with') parts.push(`matching \`${schema.pattern}\``);
  return parts.join(' ');
}

function number(schema) {
  const kind = schema.type === 'integer' ? 'a whole number' : 'a number';
  const max = schema.maximum !== undefined && schema.maximum < Number.MAX_SAFE_INTEGER ? schema.maximum : undefined;
  if (schema.exclusiveMinimum !== undefined) return `${kind} above ${schema.exclusiveMinimum}${max !== undefined ? `, at most ${max}` : ''}`;
  if (schema.minimum !== undefined && max !== undefined) return `${kind} from ${schema.minimum} to ${max}`;
  if (schema.minimum !== undefined) return `${kind}, ${schema.minimum} or more`;
  return kind;
}

/** A type as a table cell shows it: on one line, its pipes escaped. */
function cell(type) {
  return type.replace(/\s+/g, ' ').replace(/^\| /, '').replaceAll('|', '\\|');
}

/**
 * From protocol.ts's source: each op's answer type as written in `Responses`, and the file
 * each type it names is declared in (an import's module, or protocol.ts itself).
 */
function readResponses(source) {
  const file = ts.createSourceFile('protocol.ts', source, ts.ScriptTarget.Latest, true);
  const answers = new Map();
  const homes = new Map();
  for (const statement of file.statements) {
    if (ts.isImportDeclaration(statement)) {
      const bindings = statement.importClause?.namedBindings;
      if (bindings === undefined || !ts.isNamedImports(bindings)) continue;
      const from = statement.moduleSpecifier.text;
      if (!from.startsWith('.')) continue;
      const path = new URL(from.replace(/\.js$/, '.ts'), new URL('src/protocol/', ROOT)).href.slice(ROOT.href.length);
      for (const element of bindings.elements) homes.set(element.name.text, path);
    } else if (ts.isTypeAliasDeclaration(statement) || ts.isInterfaceDeclaration(statement)) {
      homes.set(statement.name.text, 'src/protocol/protocol.ts');
      if (statement.name.text === 'Responses' && ts.isTypeLiteralNode(statement.type)) {
        for (const member of statement.type.members) {
          if (ts.isPropertySignature(member) && member.type) answers.set(member.name.getText(file), member.type.getText(file));
        }
      }
    }
  }
  return { answers, homes };
}

/** The named types the answers use, each with a link to the file that declares it. */
function answerTypes(answers, homes) {
  const byFile = new Map();
  for (const answer of answers.values()) {
    for (const [name] of answer.matchAll(/\b[A-Z]\w*\b/g)) {
      const home = homes.get(name);
      if (home === undefined || name === 'Responses') continue;
      byFile.set(home, new Set([...(byFile.get(home) ?? []), name]));
    }
  }
  return [...byFile]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([file, names]) => `${[...names].map((name) => `\`${name}\``).join(', ')} in [${file}](../${file})`)
    .join('; ');
}

/** The text between the markers, or undefined when the file has no block. */
export function blockIn(doc) {
  const begin = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (begin === -1 || end === -1 || end < begin) return undefined;
  return doc.slice(begin + BEGIN.length, end);
}

export function withBlock(doc, inner) {
  const begin = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (begin === -1 || end === -1 || end < begin) throw new Error(`${DOC} has no ${BEGIN} ... ${END} block to write the op table in`);
  return `${doc.slice(0, begin + BEGIN.length)}\n\n${inner}\n\n${doc.slice(end)}`;
}

/**
 * Whether two versions of the block say the same: compared as Prettier prints them, so a
 * file Prettier has formatted (tables padded, say) still matches what this script writes.
 */
export async function sameBlock(a, b) {
  const options = { ...(await prettier.resolveConfig(DOC)), parser: 'markdown' };
  const [x, y] = await Promise.all([prettier.format(a.trim(), options), prettier.format(b.trim(), options)]);
  return x === y;
}

async function main() {
  const check = process.argv.includes('--check');
  const protocol = await import(new URL('dist/protocol/protocol.js', ROOT).href);
  const inner = opBlock(protocol, readFileSync(PROTOCOL_SOURCE, 'utf8'));
  const doc = readFileSync(DOC, 'utf8');
  const current = blockIn(doc);
  if (check) {
    if (current !== undefined && (await sameBlock(current, inner))) return;
    process.stderr.write(`docs/ARCHITECTURE.md: the op table is not what src/protocol/protocol.ts says; run npm run build && npm run docs\n`);
    process.exitCode = 1;
    return;
  }
  const next = withBlock(doc, inner);
  if (next !== doc) writeFileSync(DOC, next);
  process.stdout.write(next !== doc ? 'docs/ARCHITECTURE.md: op table rewritten\n' : 'docs/ARCHITECTURE.md: op table already up to date\n');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
