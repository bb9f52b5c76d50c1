// Vendors the daemon into the extension for one VS Code target platform (a platform-specific
// .vsix, `vsce package --target`): the harness9 package and its dependencies as wheels from
// PyPI, fetched with `pip download --only-binary=:all:` for each CPython version the bundle
// supports (HARNESS9_BUNDLE_PYTHONS, default "3.11 3.12 3.13 3.14"; a version pip finds no
// wheels for is left out with a warning) and that target's platform tags
// (HARNESS9_BUNDLE_TARGET, default the machine's own, e.g. linux-x64).
//
// A wheel fetched for every version (the pure-Python ones and the abi3 ones) is installed once
// into dist/daemon/common.zip; the rest (pydantic-core, jiter, rpds-py, cffi: compiled for one
// Python version) into dist/daemon/cp<XY>.zip. The extension unpacks common + the archive of the
// Python it finds (src/bundled.ts). dist/daemon/manifest.json says which target and versions
// the bundle has and which compiled modules to import as a check. Archives, not trees: the .vsix
// packer is slow with the ten thousand files of the SDKs. The bundle is rebuilt only when the
// daemon's sources, the target or the versions change.
//
// `node bundle-daemon.mjs --print-target` prints the built bundle's target (for `vsce package --target`).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const out = path.join(here, 'dist', 'daemon');
// Wheels and installed trees, kept between builds but not packaged.
const work = path.join(here, 'dist', 'daemon-build');

/** glibc 2.28 is what VS Code itself needs on Linux (since 1.86), so its wheels come first. */
const manylinux = (arch) => ['manylinux_2_28', 'manylinux_2_17', 'manylinux2014', 'manylinux_2_12', 'manylinux2010', 'manylinux_2_5', 'manylinux1']
  .map((tag) => `${tag}_${arch}`);
const musllinux = (arch) => [`musllinux_1_2_${arch}`, `musllinux_1_1_${arch}`];

/**
 * VS Code's target platforms: `os` and `machines` as the Python running the daemon reports them
 * (sys.platform, platform.machine() lower-cased), `platforms` the wheel tags pip may take (pip
 * adds the older macOS versions itself).
 */
const TARGETS = {
  'linux-x64': { os: 'linux', machines: ['x86_64', 'amd64'], platforms: manylinux('x86_64') },
  'linux-arm64': { os: 'linux', machines: ['aarch64', 'arm64'], platforms: manylinux('aarch64') },
  'alpine-x64': { os: 'linux', machines: ['x86_64', 'amd64'], platforms: musllinux('x86_64') },
  'alpine-arm64': { os: 'linux', machines: ['aarch64', 'arm64'], platforms: musllinux('aarch64') },
  'darwin-x64': { os: 'darwin', machines: ['x86_64'], platforms: ['macosx_11_0_x86_64'] },
  'darwin-arm64': { os: 'darwin', machines: ['arm64'], platforms: ['macosx_11_0_arm64'] },
  'win32-x64': { os: 'win32', machines: ['amd64', 'x86_64'], platforms: ['win_amd64'] },
  'win32-arm64': { os: 'win32', machines: ['arm64'], platforms: ['win_arm64'] },
};

/** The VS Code target of this machine. */
function hostTarget() {
  const arch = { x64: 'x64', arm64: 'arm64' }[process.arch] ?? process.arch;
  const os = process.platform === 'linux' && fs.existsSync('/etc/alpine-release') ? 'alpine' : process.platform;
  return `${os}-${arch}`;
}

if (process.argv.includes('--print-target')) {
  // The target of the bundle built, which is what the .vsix is for.
  try {
    console.log(JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8')).target);
    process.exit(0);
  } catch {
    console.error('bundle-daemon: no bundle in dist/daemon: run npm run bundle-daemon first');
    process.exit(1);
  }
}
const target = process.env.HARNESS9_BUNDLE_TARGET || hostTarget();
const spec = TARGETS[target];
if (spec === undefined) {
  console.error(`bundle-daemon: unknown target ${target} (one of ${Object.keys(TARGETS).join(', ')})`);
  process.exit(1);
}
const versions = (process.env.HARNESS9_BUNDLE_PYTHONS ?? '3.11 3.12 3.13 3.14').split(/\s+/).filter((v) => v !== '');
for (const v of versions) {
  const m = /^3\.(\d+)$/.exec(v);
  if (m === null || Number(m[1]) < 11) {
    console.error(`bundle-daemon: "${v}" in HARNESS9_BUNDLE_PYTHONS is not a Python version ≥ 3.11 (e.g. 3.12)`);
    process.exit(1);
  }
}
// The Python that runs pip (any version: the wheels are chosen by the flags, not by it).
const python = process.env.HARNESS9_BUNDLE_BUILD_PYTHON || 'python3';

/** A hash of what the bundle is made from: the daemon's sources, its project file, target and versions. */
function bundleHash() {
  const hash = createHash('sha256');
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory() && entry.name !== '__pycache__') {
        walk(file);
      } else if (entry.isFile() && !entry.name.endsWith('.pyc')) {
        hash.update(path.relative(root, file)).update(fs.readFileSync(file));
      }
    }
  };
  hash.update(fs.readFileSync(path.join(root, 'pyproject.toml')));
  walk(path.join(root, 'server', 'harness9'));
  hash.update(JSON.stringify({ target, versions }));
  return hash.digest('hex');
}

// Packs a folder's files (paths relative to it) into a zip archive.
const PACK = `
import os, sys, zipfile
root, archive = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(archive + ".tmp", "w", zipfile.ZIP_DEFLATED) as z:
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".pyc"):
                continue
            full = os.path.join(folder, name)
            z.write(full, os.path.relpath(full, root))
os.replace(archive + ".tmp", archive)
`;

function pip(args) {
  execFileSync(python, ['-m', 'pip', ...args, '--quiet', '--disable-pip-version-check'], { stdio: ['ignore', 'inherit', 'inherit'] });
}

/** pip's flags choosing the wheels for CPython `version` on the target. */
function tagFlags(version) {
  const abi = `cp${version.replace('.', '')}`;
  return ['--only-binary=:all:', '--python-version', version, '--implementation', 'cp', '--abi', abi, ...spec.platforms.flatMap((p) => ['--platform', p])];
}

/** The harness9 wheel, built from a copy of the sources so the build leaves nothing in the repository. */
function buildWheel() {
  const dir = path.join(work, 'wheel');
  fs.rmSync(dir, { recursive: true, force: true });
  const src = fs.mkdtempSync(path.join(work, '.src-'));
  try {
    for (const f of ['pyproject.toml', 'README.md', 'LICENSE']) {
      if (fs.existsSync(path.join(root, f))) {
        fs.copyFileSync(path.join(root, f), path.join(src, f));
      }
    }
    fs.cpSync(path.join(root, 'server'), path.join(src, 'server'), {
      recursive: true,
      filter: (p) => !p.includes('__pycache__') && !p.endsWith('.egg-info'),
    });
    pip(['wheel', '--no-deps', '--wheel-dir', dir, src]);
  } finally {
    fs.rmSync(src, { recursive: true, force: true });
  }
  return path.join(dir, fs.readdirSync(dir).find((f) => f.endsWith('.whl')));
}

/** The wheels of the daemon and its dependencies for `version` (file names), or undefined when pip finds none. */
function download(wheel, version) {
  const dest = path.join(work, target, 'wheels', version);
  fs.rmSync(dest, { recursive: true, force: true });
  try {
    pip(['download', ...tagFlags(version), '--dest', dest, wheel]);
  } catch {
    console.warn(`bundle-daemon: left out Python ${version}: pip could not fetch wheels of all the daemon's dependencies for it on ${target} (its error is above)`);
    return undefined;
  }
  return { dest, files: fs.readdirSync(dest).filter((f) => f.endsWith('.whl')).sort() };
}

/** The compiled modules in an installed tree, as import names (`pydantic_core._pydantic_core`). */
function nativeModules(tree) {
  const found = [];
  const walk = (dir, prefix) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory() && /^[A-Za-z_]\w*$/.test(entry.name)) {
        walk(path.join(dir, entry.name), [...prefix, entry.name]);
      } else if (entry.isFile() && /\.(so|pyd)$/.test(entry.name)) {
        found.push([...prefix, entry.name.split('.')[0]].join('.'));
      }
    }
  };
  walk(tree, []);
  return found.sort();
}

/** Installs `wheels` (paths) into a fresh `tree` with the tags of `version`, and packs it as `archive`. */
function installAndPack(wheels, version, tree, archive) {
  fs.rmSync(tree, { recursive: true, force: true });
  fs.mkdirSync(tree, { recursive: true });
  // With one version, every wheel is common and its own archive is empty.
  if (wheels.length > 0) {
    pip(['install', '--no-deps', '--no-index', '--no-compile', ...tagFlags(version), '--target', tree, ...wheels]);
  }
  // The console scripts pip writes name the build machine's interpreter: the extension does not use them.
  fs.rmSync(path.join(tree, 'bin'), { recursive: true, force: true });
  execFileSync(python, ['-c', PACK, tree, archive], { stdio: ['ignore', 'inherit', 'inherit'] });
  return nativeModules(tree);
}

function build(want) {
  const wheel = buildWheel();
  const fetched = new Map();
  for (const version of versions) {
    const got = download(wheel, version);
    if (got !== undefined) {
      fetched.set(version, got);
    }
  }
  if (fetched.size === 0) {
    console.error(`bundle-daemon: no wheels for any of Python ${versions.join(', ')} on ${target}`);
    process.exit(1);
  }
  // A wheel fetched for every version (pure Python, or abi3) goes into common.zip once.
  const all = [...fetched.values()];
  const common = all[0].files.filter((f) => all.every((v) => v.files.includes(f)));
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  const [first] = fetched.keys();
  const trees = path.join(work, target, 'trees');
  const commonNative = installAndPack(common.map((f) => path.join(all[0].dest, f)), first, path.join(trees, 'common'), path.join(out, 'common.zip'));
  const pythons = {};
  for (const [version, { dest, files }] of fetched) {
    const own = files.filter((f) => !common.includes(f));
    const archive = `cp${version.replace('.', '')}.zip`;
    const native = installAndPack(own.map((f) => path.join(dest, f)), version, path.join(trees, version), path.join(out, archive));
    pythons[version] = { archive, imports: ['harness9', ...commonNative, ...native] };
    console.log(`bundle-daemon: Python ${version}: ${own.length} wheels of its own (${own.map((f) => f.split('-')[0]).join(', ')})`);
  }
  const manifest = { target, os: spec.os, machines: spec.machines, common: 'common.zip', pythons, source: want };
  fs.writeFileSync(path.join(out, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  fs.writeFileSync(path.join(work, target, 'stamp'), want);
}

function upToDate(want) {
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8'));
    return manifest.source === want
      && fs.readFileSync(path.join(work, target, 'stamp'), 'utf8') === want
      && [manifest.common, ...Object.values(manifest.pythons).map((p) => p.archive)].every((f) => fs.existsSync(path.join(out, f)));
  } catch {
    return false;
  }
}

fs.mkdirSync(work, { recursive: true });
const want = bundleHash();
if (upToDate(want)) {
  console.log(`bundle-daemon: dist/daemon for ${target} is up to date`);
} else {
  console.log(`bundle-daemon: fetching the daemon's wheels for ${target}, Python ${versions.join(', ')}`);
  build(want);
}
const built = JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8'));
console.log(`bundle-daemon: dist/daemon for ${target}, Python ${Object.keys(built.pythons).join(', ')}`);
