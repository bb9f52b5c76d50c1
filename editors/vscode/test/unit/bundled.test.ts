/** The bundled daemon: which Python runs it, and its archive unpacked once (real Python, real files). */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { bundledDaemon, noPythonMessage, pickPython } from '../../src/bundled';

const python3Version = execFileSync('python3', ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { encoding: 'utf8' }).trim();

/** A bundle for `versions` whose archive holds `harness9/__init__.py`. */
function fakeBundle(versions: string[]): { dir: string; storage: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'h9-bundle-'));
  const dir = path.join(root, 'daemon');
  const tree = path.join(root, 'tree', 'harness9');
  fs.mkdirSync(dir);
  fs.mkdirSync(tree, { recursive: true });
  fs.writeFileSync(path.join(tree, '__init__.py'), 'BUNDLED = True\n');
  for (const v of versions) {
    execFileSync('python3', ['-c', 'import shutil, sys; shutil.make_archive(sys.argv[1], "zip", sys.argv[2])', path.join(dir, `py${v}`), path.join(root, 'tree')]);
  }
  fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({ pythons: versions, source: '0123456789abcdef' }));
  return { dir, storage: path.join(root, 'storage') };
}

describe('the Python that runs the bundled daemon', () => {
  it('is the first found whose version has an archive', () => {
    const found = [{ command: '/usr/bin/python3.13', version: '3.13' }, { command: '/usr/bin/python3', version: '3.11' }];
    assert.deepEqual(pickPython(found, ['3.11', '3.12']), found[1]);
    assert.equal(pickPython(found, ['3.12']), undefined);
  });

  it('when none fits, the message names what it needs, what it found and the fix', () => {
    assert.equal(
      noPythonMessage([{ command: '/usr/bin/python3', version: '3.9' }, { command: '/opt/py' }], ['3.11'], ''),
      'harness9 is not on PATH, and the daemon bundled with the extension needs Python 3.11 (found: /usr/bin/python3 3.9, /opt/py (does not run)). '
        + 'Install Python 3.11 and set "harness9.python" to it, or install harness9 (pip install harness9) and set "harness9.serverCommand"',
    );
    assert.match(noPythonMessage([], ['3.11'], ''), /found: no python3 on PATH/);
  });
});

describe('bundledDaemon', () => {
  it('unpacks the archive once and runs `python -s -m harness9 serve` on it', async () => {
    const { dir, storage } = fakeBundle([python3Version]);
    const got = await bundledDaemon(dir, storage, 'python3', process.env.PATH);
    assert.ok(got && 'argv' in got, JSON.stringify(got));
    assert.deepEqual(got.argv.slice(1), ['-s', '-m', 'harness9', 'serve']);
    assert.equal(got.env.PYTHONPATH, path.join(storage, `daemon-py${python3Version}-0123456789ab`));
    assert.equal(fs.readFileSync(path.join(got.env.PYTHONPATH, 'harness9', '__init__.py'), 'utf8'), 'BUNDLED = True\n');
    const out = execFileSync(got.argv[0], ['-s', '-c', 'import harness9; print(harness9.BUNDLED)'], { env: { ...got.env, PATH: process.env.PATH }, encoding: 'utf8' });
    assert.equal(out.trim(), 'True');
    // The second start reuses it.
    fs.writeFileSync(path.join(got.env.PYTHONPATH, 'marker'), '');
    const again = await bundledDaemon(dir, storage, 'python3', process.env.PATH);
    assert.ok(again && 'argv' in again && fs.existsSync(path.join(again.env.PYTHONPATH, 'marker')));
  });

  it('says why when no Python fits, and is undefined without a bundle', async () => {
    const { dir, storage } = fakeBundle(['2.7']);
    const got = await bundledDaemon(dir, storage, 'python3', process.env.PATH);
    assert.ok(got && 'error' in got);
    assert.match(got.error, new RegExp(`needs Python 2\\.7 \\(found: \\S+python3 ${python3Version.replace('.', '\\.')}\\)`));
    assert.equal(await bundledDaemon(path.join(storage, 'nothing'), storage, '', process.env.PATH), undefined);
  });
});
