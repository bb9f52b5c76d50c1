/** Settings → daemon command line and daemon settings. */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import {
  APPROVAL_MODES, approvalsFrom, daemonSettingsFrom, daemonSettingsOver, findExecutable, pathMapFrom, pricesFrom, serverCommandFrom, splitCommand, syncedDocuments,
} from '../../src/config';

describe('serverCommandFrom', () => {
  it('defaults to harness9 serve', () => {
    assert.deepEqual(serverCommandFrom(undefined), ['harness9', 'serve']);
    assert.deepEqual(serverCommandFrom(''), ['harness9', 'serve']);
    assert.deepEqual(serverCommandFrom([]), ['harness9', 'serve']);
  });

  it('takes an array as is and splits a string', () => {
    assert.deepEqual(serverCommandFrom(['/opt/h9/bin/harness9', 'serve']), ['/opt/h9/bin/harness9', 'serve']);
    assert.deepEqual(serverCommandFrom('python -m harness9 serve'), ['python', '-m', 'harness9', 'serve']);
  });
});

describe('splitCommand', () => {
  it('groups quoted words and joins adjacent pieces', () => {
    assert.deepEqual(splitCommand(`"/my dir/harness9"  serve`), ['/my dir/harness9', 'serve']);
    assert.deepEqual(splitCommand(`a'b c'd e`), ['ab cd', 'e']);
    assert.deepEqual(splitCommand('  '), []);
  });
});

describe('daemonSettingsFrom', () => {
  it('sends what is set and null for the "daemon default" values, so a cleared one resets', () => {
    const values: Record<string, unknown> = {
      provider: 'auto', model: ' ', maxTurns: 5, toolTimeoutMs: 1000, thinking: true, stream: false, replayFile: '',
      editsThroughEditor: false, diagnosticsAfterEdit: false, diagnosticsWaitMs: 500,
    };
    assert.deepEqual(daemonSettingsFrom((k) => values[k]), {
      provider: null, model: null, maxTurns: 5, toolTimeoutMs: 1000, thinking: true, stream: false, replayFile: null,
      editsThroughEditor: false, diagnosticsAfterEdit: false, diagnosticsWaitMs: 500, approvals: null, prices: null,
      pathMap: null,
    });
  });

  it('passes provider, model and replay file, and sends invalid numbers as null', () => {
    const values: Record<string, unknown> = {
      provider: 'replay', model: 'gpt-x', replayFile: '/tmp/s.json', maxTurns: 0, toolTimeoutMs: 1.5, diagnosticsWaitMs: 0,
    };
    assert.deepEqual(daemonSettingsFrom((k) => values[k]), {
      provider: 'replay', model: 'gpt-x', maxTurns: null, toolTimeoutMs: null, thinking: null, stream: null,
      replayFile: '/tmp/s.json', editsThroughEditor: null, diagnosticsAfterEdit: null, diagnosticsWaitMs: null, approvals: null,
      prices: null, pathMap: null,
    });
  });

  it('takes what the extension chooses (the demo\'s scripted model) over the settings, the rest as set', () => {
    const values: Record<string, unknown> = { provider: 'openai', model: 'gpt-x', maxTurns: 3 };
    const sent = daemonSettingsOver({ provider: 'replay', replayFile: '/demo/replay.json' }, (k) => values[k]);
    assert.equal(sent.provider, 'replay');
    assert.equal(sent.replayFile, '/demo/replay.json');
    assert.equal(sent.model, 'gpt-x');
    assert.equal(sent.maxTurns, 3);
    assert.deepEqual(daemonSettingsOver({}, (k) => values[k]), daemonSettingsFrom((k) => values[k]));
  });

  it('sends the complete pathMap entries, and null when there are none', () => {
    const pathMap = [{ local: '/home/me/proj', remote: '/srv/proj' }, { local: '/x' }, 'y', { local: ' ', remote: '/z' }];
    assert.deepEqual(daemonSettingsFrom((k) => ({ pathMap })[k as 'pathMap']).pathMap,
      [{ local: '/home/me/proj', remote: '/srv/proj' }]);
    assert.equal(pathMapFrom([]), null);
    assert.equal(pathMapFrom(undefined), null);
  });

  it('sends the prices as set, and null when there are none', () => {
    const prices = { 'gpt-4o': { input: 1, output: 2 } };
    assert.deepEqual(daemonSettingsFrom((k) => ({ prices })[k as 'prices']).prices, prices);
    assert.equal(pricesFrom({}), null);
    assert.equal(pricesFrom(['gpt-4o']), null);
    assert.equal(pricesFrom(undefined), null);
  });

  it('sends the approval settings as one approvals object, leaving out the parts at their default', () => {
    const values: Record<string, unknown> = {
      'approvals.mode': 'auto-edit', 'approvals.allow': ['bash(npm test)', ' ', 3], 'approvals.deny': [],
    };
    assert.deepEqual(daemonSettingsFrom((k) => values[k]).approvals, { mode: 'auto-edit', allow: ['bash(npm test)'] });
    assert.deepEqual(approvalsFrom((k) => ({ 'approvals.deny': [' bash(rm *) '] })[k]), { deny: ['bash(rm *)'] });
  });

  it('sends approvals as null when the mode is "default" (or unknown) and there are no rules', () => {
    assert.equal(approvalsFrom((k) => ({ 'approvals.mode': 'default', 'approvals.allow': [] })[k]), null);
    assert.equal(approvalsFrom((k) => ({ 'approvals.mode': 'sometimes' })[k]), null);
    for (const mode of ['auto', 'ask', 'auto-edit', 'yolo', 'read-only', 'plan']) {
      assert.deepEqual(approvalsFrom((k) => ({ 'approvals.mode': mode })[k]), { mode });
    }
  });

  it('offers each mode the daemon knows in the settings, each with its description', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
      contributes: { configuration: { properties: Record<string, { enum?: string[]; enumDescriptions?: string[] }> } };
    };
    const schema = manifest.contributes.configuration.properties['harness9.approvals.mode'];
    assert.deepEqual(schema.enum, ['default', ...APPROVAL_MODES]);
    assert.equal(schema.enumDescriptions?.length, schema.enum?.length);
    assert.ok(APPROVAL_MODES.includes('auto'));
  });
});

describe('findExecutable', () => {
  it('finds a command on PATH or by path, and not a missing or non-executable one', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'h9-exe-'));
    const exe = path.join(dir, 'tool');
    fs.writeFileSync(exe, '#!/bin/sh\n', { mode: 0o755 });
    fs.writeFileSync(path.join(dir, 'plain'), '', { mode: 0o644 });
    try {
      assert.equal(findExecutable('tool', `/nonexistent${path.delimiter}${dir}`), exe);
      assert.equal(findExecutable(exe, ''), exe);
      assert.equal(findExecutable('./tool', '', dir), exe);
      assert.equal(findExecutable('missing', dir), undefined);
      assert.equal(findExecutable(path.join(dir, 'plain'), ''), undefined);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('syncedDocuments', () => {
  it('syncs the files under each workspace folder', () => {
    assert.deepEqual(syncedDocuments(['/home/me/project', '/srv/other/']), [
      { scheme: 'file', pattern: '/home/me/project/**' },
      { scheme: 'file', pattern: '/srv/other/**' },
    ]);
  });

  it('syncs nothing without a folder, and every file when a folder cannot be a glob', () => {
    assert.deepEqual(syncedDocuments([]), []);
    assert.deepEqual(syncedDocuments(['/home/me/[draft] project']), [{ scheme: 'file' }]);
  });
});

describe('setting scopes', () => {
  it('only the user sets what starts the daemon, which model and script it plays, and what runs unasked; a workspace cannot', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
      contributes: { configuration: { properties: Record<string, { scope?: string }> } };
    };
    const properties = Object.entries(manifest.contributes.configuration.properties);
    const machine = properties.filter(([, schema]) => schema.scope === 'machine').map(([name]) => name).sort();
    assert.deepEqual(machine, [
      'harness9.approvals.allow', 'harness9.approvals.deny', 'harness9.approvals.mode',
      'harness9.model', 'harness9.pathMap', 'harness9.prices', 'harness9.provider', 'harness9.python', 'harness9.replayFile',
      'harness9.serverCommand',
    ]);
    // Every other setting says that a workspace may set it (a new one must choose).
    assert.deepEqual(properties.filter(([, schema]) => schema.scope === undefined).map(([name]) => name), []);
  });
});
