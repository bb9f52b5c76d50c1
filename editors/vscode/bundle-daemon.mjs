// Vendors the daemon into the extension: the harness9 Python package and its dependencies,
// installed with pip for each Python the bundle is built with (HARNESS9_BUNDLE_PYTHONS, default
// "python3"; each ≥ 3.11) and packed as dist/daemon/py<X.Y>.zip (one file: the .vsix packer is
// slow with the ten thousand files of the SDKs; the extension unpacks it once, with that Python).
// Compiled dependencies (pydantic-core, jiter) only work with the Python version they were
// installed for, hence one archive per version; dist/daemon/manifest.json lists them. An archive
// is rebuilt only when the daemon's sources change.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const out = path.join(here, 'dist', 'daemon');
// The installed trees, kept between builds but not packaged.
const work = path.join(here, 'dist', 'daemon-build');

/** A hash of what the install is made from: the daemon's sources and its project file. */
function sourceHash() {
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
            if name.endswith(".pyc") or name == ".harness9-source":
                continue
            full = os.path.join(folder, name)
            z.write(full, os.path.relpath(full, root))
os.replace(archive + ".tmp", archive)
`;

function versionOf(python) {
  return execFileSync(python, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { encoding: 'utf8' }).trim();
}

const pythons = (process.env.HARNESS9_BUNDLE_PYTHONS ?? 'python3').split(/\s+/).filter((p) => p !== '');
const want = sourceHash();
const versions = [];
fs.mkdirSync(out, { recursive: true });
fs.mkdirSync(work, { recursive: true });
for (const python of pythons) {
  const version = versionOf(python);
  const [major, minor] = version.split('.').map(Number);
  if (major < 3 || (major === 3 && minor < 11)) {
    console.warn(`bundle-daemon: skipping ${python} (Python ${version}; the daemon needs 3.11 or newer)`);
    continue;
  }
  const target = path.join(work, `py${version}`);
  const archive = path.join(out, `py${version}.zip`);
  const stamp = path.join(target, '.harness9-source');
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === want && fs.existsSync(archive)) {
    console.log(`bundle-daemon: py${version} is up to date`);
  } else {
    console.log(`bundle-daemon: installing the daemon for Python ${version} with ${python}`);
    fs.rmSync(target, { recursive: true, force: true });
    // A copy of the sources, so the build leaves nothing in the repository.
    const src = fs.mkdtempSync(path.join(work, '.src-'));
    fs.copyFileSync(path.join(root, 'pyproject.toml'), path.join(src, 'pyproject.toml'));
    for (const f of ['README.md', 'LICENSE']) {
      if (fs.existsSync(path.join(root, f))) {
        fs.copyFileSync(path.join(root, f), path.join(src, f));
      }
    }
    fs.cpSync(path.join(root, 'server'), path.join(src, 'server'), {
      recursive: true,
      filter: (p) => !p.includes('__pycache__') && !p.endsWith('.egg-info'),
    });
    try {
      execFileSync(python, ['-m', 'pip', 'install', '--quiet', '--no-compile', '--disable-pip-version-check', '--target', target, src], {
        stdio: ['ignore', 'inherit', 'inherit'],
      });
    } finally {
      fs.rmSync(src, { recursive: true, force: true });
    }
    // The console scripts pip writes name the build machine's interpreter: the extension does not use them.
    fs.rmSync(path.join(target, 'bin'), { recursive: true, force: true });
    execFileSync(python, ['-c', PACK, target, archive], { stdio: ['ignore', 'inherit', 'inherit'] });
    fs.writeFileSync(stamp, want);
  }
  versions.push(version);
}
fs.writeFileSync(path.join(out, 'manifest.json'), `${JSON.stringify({ pythons: versions, source: want }, null, 2)}\n`);
console.log(`bundle-daemon: dist/daemon for Python ${versions.join(', ') || '(none)'}`);
