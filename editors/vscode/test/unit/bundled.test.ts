/** The bundled daemon: which Python runs it, and its archives unpacked once and checked (real Pythons, real files). */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { bundledDaemon, FoundPython, Manifest, noPythonMessage, pickPython, probePython, PythonInfo, unfitReason } from '../../src/bundled';

const python3 = JSON.parse(execFileSync('python3', ['-c', 'import json, platform, sys; print(json.dumps(["%d.%d" % sys.version_info[:2], sys.platform, platform.machine().lower()]))'], { encoding: 'utf8' })) as string[];
const [hostVersion, hostOs, hostMachine] = python3;

/** Pythons of the versions 3.10 … 3.14 on this machine (PATH, then pyenv's), by version. */
function machinePythons(): Map<string, string> {
  const found = new Map<string, string>();
  const pyenv = path.join(process.env.PYENV_ROOT ?? path.join(os.homedir(), '.pyenv'), 'versions');
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter((d) => !d.includes('.pyenv/shims'));
  for (const v of fs.existsSync(pyenv) ? fs.readdirSync(pyenv).sort() : []) {
    dirs.push(path.join(pyenv, v, 'bin'));
  }
  for (const minor of [10, 11, 12, 13, 14]) {
    const exe = dirs.map((d) => path.join(d, `python3.${minor}`)).find((f) => fs.existsSync(f));
    if (exe !== undefined) {
      found.set(`3.${minor}`, exe);
    }
  }
  return found;
}

const manifestFor = (versions: string[]): Manifest => ({
  target: 'linux-x64',
  os: 'linux',
  machines: ['x86_64', 'amd64'],
  common: 'common.zip',
  pythons: Object.fromEntries(versions.map((v) => [v, { archive: `cp${v.replace('.', '')}.zip`, imports: ['harness9'] }])),
  source: '0123456789abcdef',
});

const cpython = (version: string, more: Partial<PythonInfo> = {}): PythonInfo => ({
  version, implementation: 'cpython', freeThreaded: false, os: 'linux', machine: 'x86_64', ...more,
});

function zip(archive: string, tree: string): void {
  execFileSync('python3', ['-c', 'import shutil, sys; shutil.make_archive(sys.argv[1], "zip", sys.argv[2])', archive.replace(/\.zip$/, ''), tree]);
}

/**
 * A bundle for this machine: common.zip holds `harness9/__init__.py`, each version's archive a
 * module `native` naming its version (and `imports` checked once unpacked).
 */
function fakeBundle(versions: string[], imports: string[] = ['harness9', 'native']): { dir: string; storage: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'h9-bundle-'));
  const dir = path.join(root, 'daemon');
  fs.mkdirSync(path.join(root, 'common', 'harness9'), { recursive: true });
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(root, 'common', 'harness9', '__init__.py'), 'BUNDLED = True\n');
  zip(path.join(dir, 'common.zip'), path.join(root, 'common'));
  for (const v of versions) {
    const tree = path.join(root, `tree${v}`);
    fs.mkdirSync(tree);
    fs.writeFileSync(path.join(tree, 'native.py'), `BUILT_FOR = "${v}"\n`);
    fs.writeFileSync(path.join(tree, 'broken.py'), `raise ImportError("wheel for ${v} does not fit")\n`);
    zip(path.join(dir, `cp${v.replace('.', '')}.zip`), tree);
  }
  const manifest: Manifest = {
    ...manifestFor(versions),
    os: hostOs,
    machines: [hostMachine],
    pythons: Object.fromEntries(versions.map((v) => [v, { archive: `cp${v.replace('.', '')}.zip`, imports }])),
  };
  fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
  return { dir, storage: path.join(root, 'storage') };
}

describe('the Python that runs the bundled daemon', () => {
  const manifest = manifestFor(['3.11', '3.12', '3.13']);

  it('is the first CPython found whose version, build and machine the bundle has wheels for', () => {
    const found: FoundPython[] = [
      { command: '/usr/bin/python3.10', info: cpython('3.10') },
      { command: '/usr/bin/python3.14', info: cpython('3.14') },
      { command: '/usr/bin/pypy3', info: cpython('3.11', { implementation: 'pypy' }) },
      { command: '/usr/bin/python3.13t', info: cpython('3.13', { freeThreaded: true }) },
      { command: '/opt/arm/python3.12', info: cpython('3.12', { machine: 'aarch64' }) },
      { command: '/usr/bin/broken' },
      { command: '/usr/bin/python3.12', info: cpython('3.12') },
      { command: '/usr/bin/python3', info: cpython('3.11') },
    ];
    assert.equal(pickPython(found, manifest), found[6]);
    assert.deepEqual(found.map((p) => unfitReason(p, manifest)), [
      '3.10, too old: the daemon needs 3.11 or newer',
      '3.14: the bundle has no wheels for 3.14',
      'pypy 3.11: the bundle is for CPython',
      '3.13 free-threaded: the bundle is for the standard build',
      '3.12 for linux aarch64: this is the linux-x64 build of the extension',
      'does not run',
      undefined,
      undefined,
    ]);
    assert.equal(pickPython(found.slice(0, 6), manifest), undefined);
  });

  it('when only Python 3.10 is found, the message says so, what the bundle needs, and the fix', () => {
    assert.equal(
      noPythonMessage([{ command: '/usr/bin/python3', info: cpython('3.10') }], manifest, ''),
      'harness9 is not on PATH, and the daemon bundled with the extension needs CPython 3.11, 3.12 or 3.13 '
        + '(found: /usr/bin/python3 3.10, too old: the daemon needs 3.11 or newer). '
        + 'Install Python 3.13 and set "harness9.python" to it, or install harness9 (pip install harness9) and set "harness9.serverCommand"',
    );
  });

  it('when a Python newer than the bundle is found, the message offers to install the daemon with it', () => {
    assert.equal(
      noPythonMessage([{ command: '/usr/bin/python3.14', info: cpython('3.14') }, { command: '/usr/bin/python3' }], manifest, ''),
      'harness9 is not on PATH, and the daemon bundled with the extension needs CPython 3.11, 3.12 or 3.13 '
        + '(found: /usr/bin/python3.14 3.14: the bundle has no wheels for 3.14; /usr/bin/python3 does not run). '
        + 'Install Python 3.13 and set "harness9.python" to it, or install harness9 with it (/usr/bin/python3.14 -m pip install harness9) '
        + 'and set "harness9.serverCommand"',
    );
    assert.match(noPythonMessage([], manifest, ''), /found: no python3 on PATH/);
    assert.match(noPythonMessage([], manifest, '/opt/py'), /found: "\/opt\/py" not found/);
  });

  it('a real Python reports its version, build and machine', async () => {
    const info = await probePython('python3');
    assert.deepEqual(info && [info.version, info.implementation, info.os, info.machine], [hostVersion, 'cpython', hostOs, hostMachine]);
    assert.equal(await probePython(path.join(os.tmpdir(), 'no-such-python')), undefined);
  });
});

describe('bundledDaemon', () => {
  it('unpacks common + the archive of its version once, checks its imports, and runs `python -s -m harness9 serve` on it', async () => {
    const { dir, storage } = fakeBundle(['3.9', hostVersion]);
    const got = await bundledDaemon(dir, storage, 'python3', process.env.PATH);
    assert.ok(got && 'argv' in got, JSON.stringify(got));
    assert.deepEqual(got.argv.slice(1), ['-s', '-m', 'harness9', 'serve']);
    assert.equal(got.env.PYTHONPATH, path.join(storage, `daemon-py${hostVersion}-0123456789ab`));
    const out = execFileSync(got.argv[0], ['-s', '-c', 'import harness9, native; print(harness9.BUNDLED, native.BUILT_FOR)'], {
      env: { ...got.env, PATH: process.env.PATH }, encoding: 'utf8',
    });
    assert.equal(out.trim(), `True ${hostVersion}`);
    assert.deepEqual(fs.readdirSync(storage), [path.basename(got.env.PYTHONPATH)]);
    // The second start reuses it.
    fs.writeFileSync(path.join(got.env.PYTHONPATH, 'marker'), '');
    const again = await bundledDaemon(dir, storage, 'python3', process.env.PATH);
    assert.ok(again && 'argv' in again && fs.existsSync(path.join(again.env.PYTHONPATH, 'marker')));
  });

  it('says which module does not load when the wheels do not fit, and keeps nothing of it', async () => {
    const { dir, storage } = fakeBundle([hostVersion], ['harness9', 'broken']);
    const got = await bundledDaemon(dir, storage, 'python3', process.env.PATH);
    assert.ok(got && 'error' in got, JSON.stringify(got));
    assert.match(got.error, new RegExp(`does not load in \\S+python3 \\(Python ${hostVersion.replace('.', '\\.')}\\): ImportError: wheel for ${hostVersion.replace('.', '\\.')} does not fit\\. Set "harness9\\.python"`));
    assert.deepEqual(fs.readdirSync(storage), []);
  });

  it('a Python that looks right but cannot load the bundle is passed over for the next one found', async () => {
    const { dir, storage } = fakeBundle([hostVersion]);
    // First on PATH: a python3.14 that is this Python in disguise, in an environment where the
    // bundle cannot load (no PYTHONPATH, and not the working folder either: PYTHONSAFEPATH).
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'h9-bin-'));
    const real = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();
    const disguised = path.join(bin, 'python3.14');
    fs.writeFileSync(disguised, `#!/bin/sh\nunset PYTHONPATH\nexport PYTHONSAFEPATH=1\nexec "${real}" "$@"\n`, { mode: 0o755 });
    const got = await bundledDaemon(dir, storage, '', `${bin}${path.delimiter}${process.env.PATH}`);
    assert.ok(got && 'argv' in got, JSON.stringify(got));
    assert.notEqual(got.argv[0], disguised);
    // Given as harness9.python, it is the only one tried: its error is the answer.
    const configured = await bundledDaemon(dir, `${storage}-configured`, disguised, process.env.PATH);
    assert.ok(configured && 'error' in configured && configured.error.includes('does not load'), JSON.stringify(configured));
  });

  it('says why when no Python fits, and is undefined without a bundle', async () => {
    const { dir, storage } = fakeBundle(['2.7']);
    const got = await bundledDaemon(dir, storage, 'python3', process.env.PATH);
    assert.ok(got && 'error' in got);
    assert.match(got.error, new RegExp(`needs CPython 2\\.7 \\(found: \\S+python3 ${hostVersion.replace('.', '\\.')}: the bundle has no wheels for`));
    assert.equal(await bundledDaemon(path.join(storage, 'nothing'), storage, '', process.env.PATH), undefined);
  });

  // The Pythons of other versions on this machine (pyenv's), each given as harness9.python.
  const others = machinePythons();
  for (const [version, exe] of others) {
    it(`with Python ${version} (${exe}) takes its own archive, or says why it cannot`, async () => {
      const { dir, storage } = fakeBundle(['3.11', '3.12', '3.13']);
      const got = await bundledDaemon(dir, storage, exe, process.env.PATH);
      assert.ok(got !== undefined);
      if (['3.11', '3.12', '3.13'].includes(version)) {
        assert.ok('argv' in got, JSON.stringify(got));
        const out = execFileSync(exe, ['-s', '-c', 'import native; print(native.BUILT_FOR)'], { env: { ...got.env, PATH: process.env.PATH }, encoding: 'utf8' });
        assert.equal(out.trim(), version);
      } else {
        assert.ok('error' in got);
        const why = version === '3.10' ? '3.10, too old' : `${version}: the bundle has no wheels for ${version}`;
        assert.ok(got.error.includes(`(found: ${exe} ${why}`), got.error);
      }
    });
  }
});
