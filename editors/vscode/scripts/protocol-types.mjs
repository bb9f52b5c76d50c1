// Generates src/protocol.generated.ts, the TypeScript types of the daemon's wire protocol, from
// docs/protocol.schema.json (what `harness9 schema` prints): one exported type per `$defs` entry,
// named as there, and `ProtocolMethods`, each method's direction, params and result.
//
//   node scripts/protocol-types.mjs           write src/protocol.generated.ts (npm run protocol)
//   node scripts/protocol-types.mjs --check   fail when the checked-in file is not what the
//                                             schema gives (npm run protocol:check)
//   --target FILE                             check or write FILE instead
import { compile } from 'json-schema-to-typescript';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(dirname(fileURLToPath(import.meta.url)));
const schemaPath = join(here, '..', '..', 'docs', 'protocol.schema.json');
const defaultTarget = join(here, 'src', 'protocol.generated.ts');
const REGENERATE = 'npm run protocol';

const BANNER = `/**
 * Generated from docs/protocol.schema.json by scripts/protocol-types.mjs: do not edit.
 * After a change of the protocol (server/harness9/protocol), regenerate both:
 *   PYTHONPATH=server python -m harness9 schema > docs/protocol.schema.json
 *   cd editors/vscode && npm run protocol
 */`;

// The generator notes on each definition that the root schema holds it: noise here, as they all are.
const HELD_BY_ROOT = /\n \*\n \* This interface was referenced by `ProtocolMethods`'s JSON-Schema\n \* via the `definition` "\w+"\./g;
const ONLY_HELD_BY_ROOT = /\/\*\*\n \* This interface was referenced by `ProtocolMethods`'s JSON-Schema\n \* via the `definition` "\w+"\.\n \*\/\n/g;

/** The schema to compile: an object whose properties are the methods, over every `$defs` entry. */
function rootSchema(document) {
  const methods = document['x-harness9'].methods;
  const properties = {};
  for (const [name, method] of Object.entries(methods)) {
    const parts = {
      direction: { const: method.direction },
      params: method.params,
      ...(method.result ? { result: method.result } : {}),
    };
    properties[name] = {
      type: 'object',
      properties: parts,
      required: Object.keys(parts),
      additionalProperties: false,
    };
  }
  return {
    title: 'ProtocolMethods',
    description: `Each method of protocol ${document['x-harness9'].version}: who sends it, its params and its result.`,
    type: 'object',
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
    $defs: document.$defs,
  };
}

/** The text of src/protocol.generated.ts for docs/protocol.schema.json. */
async function generate() {
  const document = JSON.parse(readFileSync(schemaPath, 'utf8'));
  const text = await compile(rootSchema(document), 'ProtocolMethods', {
    bannerComment: BANNER,
    unreachableDefinitions: true,
    additionalProperties: true,
    unknownAny: true,
    style: { singleQuote: true, bracketSpacing: true, trailingComma: 'all', printWidth: 120 },
  });
  const cleaned = text.replace(ONLY_HELD_BY_ROOT, '').replace(HELD_BY_ROOT, '');
  if (cleaned.includes('was referenced by')) {
    throw new Error('protocol-types: the generator notes changed shape; update HELD_BY_ROOT');
  }
  const missing = Object.keys(document.$defs).filter((name) => !new RegExp(`^export (interface|type) ${name}\\b`, 'm').test(cleaned));
  if (missing.length > 0) {
    throw new Error(`protocol-types: no type generated for ${missing.join(', ')}`);
  }
  return `${cleaned.trimEnd()}\nexport const PROTOCOL_VERSION = '${document['x-harness9'].version}';\n`;
}

/** Generates the file afresh and compares it with `targetPath`; true when they are equal. */
async function check(targetPath) {
  const want = await generate();
  let have = '';
  try {
    have = readFileSync(targetPath, 'utf8');
  } catch {
    // missing: reported as different below
  }
  if (have === want) {
    return true;
  }
  const a = have.split('\n');
  const b = want.split('\n');
  let line = 0;
  while (line < a.length && line < b.length && a[line] === b[line]) line++;
  console.error(`src/protocol.generated.ts is not what docs/protocol.schema.json gives (from line ${line + 1}):`);
  console.error(`  checked in: ${a[line] ?? '(end of file)'}`);
  console.error(`  generated:  ${b[line] ?? '(end of file)'}`);
  console.error(`Run \`${REGENERATE}\` in editors/vscode and commit src/protocol.generated.ts.`);
  return false;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--target');
  const targetPath = at > 0 && process.argv[at + 1] ? process.argv[at + 1] : defaultTarget;
  if (process.argv.includes('--check')) {
    process.exitCode = (await check(targetPath)) ? 0 : 1;
  } else {
    writeFileSync(targetPath, await generate());
    console.error(`wrote ${relative(process.cwd(), targetPath)}`);
  }
}
