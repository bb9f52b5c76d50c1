/**
 * The protocol's generated types: src/protocol.generated.ts is what docs/protocol.schema.json
 * gives (the quick form of the build's drift check), with a type for every definition; and a
 * message read by them gives its declared fields only (a field read under another name does not
 * compile: the `@ts-expect-error` lines below fail the type check when it would).
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type * as P from '../../src/protocol.generated';
import { isKind, type ProgressNotification, received, receivedList } from '../../src/wire';

const EXTENSION = path.join(__dirname, '..', '..', '..');
const GENERATED = path.join(EXTENSION, 'src', 'protocol.generated.ts');
const SCHEMA = path.join(EXTENSION, '..', '..', 'docs', 'protocol.schema.json');

/** `node scripts/protocol-types.mjs --check`, against `target` when given. */
function check(target?: string): { status: number | null; stderr: string } {
  const args = ['scripts/protocol-types.mjs', '--check', ...(target !== undefined ? ['--target', target] : [])];
  const done = spawnSync(process.execPath, args, { cwd: EXTENSION, encoding: 'utf8', timeout: 30_000 });
  return { status: done.status, stderr: done.stderr };
}

describe('the generated protocol types', () => {
  it('are what the schema gives', () => {
    const { status, stderr } = check();
    assert.equal(status, 0, stderr);
  });

  it('name the command that brings a stale copy up to date', () => {
    const stale = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'harness9-protocol-')), 'protocol.generated.ts');
    try {
      fs.writeFileSync(stale, fs.readFileSync(GENERATED, 'utf8').replace('  exitCode?: number;', '  exitcode?: number;'));
      const { status, stderr } = check(stale);
      assert.equal(status, 1);
      assert.match(stderr, /checked in: {3}exitcode\?: number;/);
      assert.match(stderr, /Run `npm run protocol` in editors\/vscode/);
    } finally {
      fs.rmSync(path.dirname(stale), { recursive: true, force: true });
    }
  });

  it('declare one type for each definition of the schema, by its name', () => {
    const schema = JSON.parse(fs.readFileSync(SCHEMA, 'utf8')) as { $defs: Record<string, unknown> };
    const text = fs.readFileSync(GENERATED, 'utf8');
    const declared = new Set([...text.matchAll(/^export (?:interface|type) (\w+)/gm)].map((m) => m[1]));
    assert.deepEqual(Object.keys(schema.$defs).filter((name) => !declared.has(name)), []);
  });
});

describe('the recorded sequences the reducer is tested on', () => {
  it('carry only fields their kind declares (older daemons leave some out)', () => {
    const defs = (JSON.parse(fs.readFileSync(SCHEMA, 'utf8')) as { $defs: Record<string, { properties: Record<string, { const?: string }> }> }).$defs;
    const kinds = new Map(Object.values(defs).filter((d) => d.properties?.seq !== undefined).map((d) => [d.properties.kind.const, d]));
    const fixtures = path.join(EXTENSION, 'test', 'fixtures');
    const undeclared = new Set<string>();
    for (const name of fs.readdirSync(fixtures).filter((f) => f.endsWith('.json'))) {
      const recorded = JSON.parse(fs.readFileSync(path.join(fixtures, name), 'utf8')) as ProgressNotification[] | { notifications: ProgressNotification[] };
      for (const n of Array.isArray(recorded) ? recorded : recorded.notifications) {
        const declared = kinds.get(String(n.kind))?.properties ?? {};
        Object.keys(n).filter((k) => !(k in declared)).forEach((k) => undeclared.add(`${name}: ${String(n.kind)}.${k}`));
      }
    }
    assert.ok(kinds.size >= 20);
    assert.deepEqual([...undeclared], []);
  });
});

describe('a message read by its protocol type', () => {
  it('gives the fields as they came, unchecked', () => {
    const failed = received<P.ToolFailed>({ kind: 'tool_failed', exitCode: 2, reason: 'a newer one' });
    assert.equal(failed.exitCode, 2);
    assert.equal(failed.reason, 'a newer one');
    // @ts-expect-error: the protocol names it `exitCode`
    assert.equal(failed.exitcode, undefined);
  });

  it('reads what is not an object as an object without fields', () => {
    assert.deepEqual(received<P.RunResult>(null), {});
    assert.deepEqual(received<P.RunResult>('done'), {});
    assert.deepEqual(receivedList<P.ChangedFile>([{ path: 'a' }, 3, null]), [{ path: 'a' }, {}, {}]);
    assert.deepEqual(receivedList<P.ChangedFile>({ path: 'a' }), []);
  });

  it('reads only the fields declared, also of an open record', () => {
    const result = received<P.RunResult>({ status: 'completed', command: 'compact', compacted: {} });
    assert.equal(result.command, 'compact');
    // @ts-expect-error: RunResult admits more fields but declares no `compacted`
    assert.deepEqual(result.compacted, {});
  });

  it('narrows a progress notification by its kind', () => {
    const n: ProgressNotification = { runId: 'r-1', seq: 4, kind: 'tool_output', toolCallId: 'c1', text: 'ok\n' };
    assert.ok(!isKind(n, 'tool_started'));
    assert.ok(isKind(n, 'tool_output'));
    if (isKind(n, 'tool_output')) {
      assert.equal(n.text, 'ok\n');
      // @ts-expect-error: tool_output carries no `output` (tool_completed does)
      assert.equal(n.output, undefined);
    }
    // @ts-expect-error: no progress kind is called `tool_outputs`
    assert.ok(!isKind(n, 'tool_outputs'));
  });
});
