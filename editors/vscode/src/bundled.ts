/**
 * The daemon bundled with the extension (dist/daemon, see bundle-daemon.mjs): used when
 * `harness9` is not on PATH, run with a CPython the bundle has wheels for (`harness9.python`,
 * else the first fitting one of python3.14 … python3 on PATH), from common.zip plus that
 * version's cp<XY>.zip unpacked once into the extension's storage and checked by importing its
 * compiled modules. No `vscode` import.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { findExecutable } from './config';

/** How to start the bundled daemon. */
export interface BundledCommand {
  readonly argv: string[];
  /** Its Python path (the vendored packages only) and no user site-packages. */
  readonly env: Record<string, string>;
}

/** What a Python says of itself (see PROBE). */
export interface PythonInfo {
  /** `3.12` */
  readonly version: string;
  /** `cpython`, `pypy`, … */
  readonly implementation: string;
  /** A free-threaded build (3.13t): its compiled modules differ from the standard build's. */
  readonly freeThreaded: boolean;
  /** `sys.platform`: `linux`, `darwin`, `win32`. */
  readonly os: string;
  /** `platform.machine()` lower-cased: `x86_64`, `aarch64`, `arm64`, `amd64`. */
  readonly machine: string;
}

/** A Python found on the machine: its command and what it says of itself (none: it does not run). */
export interface FoundPython {
  readonly command: string;
  readonly info?: PythonInfo;
}

/** One Python version's part of the bundle. */
export interface BundledVersion {
  readonly archive: string;
  /** Modules to import once unpacked (the compiled ones): a failure means the wheels do not fit this Python. */
  readonly imports: string[];
}

/** A bundle's manifest: its target platform, the Python versions it has wheels for, a hash of its sources. */
export interface Manifest {
  /** VS Code's target platform, e.g. `linux-x64`. */
  readonly target: string;
  readonly os: string;
  readonly machines: string[];
  readonly common: string;
  readonly pythons: Record<string, BundledVersion>;
  readonly source: string;
}

const MIN_MINOR = 11;

// Newest first: the first that fits runs the daemon. Windows has no python3.X commands.
const CANDIDATES = process.platform === 'win32'
  ? ['python.exe', 'python3.exe']
  : ['python3.14', 'python3.13', 'python3.12', 'python3.11', 'python3', 'python'];

// Runs on any Python (2.7 too), so that an old one is reported by its version.
const PROBE = 'import json, platform, sys, sysconfig; print(json.dumps({"version": "%d.%d" % sys.version_info[:2], '
  + '"implementation": platform.python_implementation().lower(), "freeThreaded": bool(sysconfig.get_config_var("Py_GIL_DISABLED")), '
  + '"os": sys.platform, "machine": platform.machine().lower()}))';

const CHECK = 'import importlib, sys\nfor name in sys.argv[1:]:\n    importlib.import_module(name)';

/** The bundle's manifest; undefined without a bundle. */
export function readManifest(daemonDir: string): Manifest | undefined {
  try {
    const m = JSON.parse(fs.readFileSync(path.join(daemonDir, 'manifest.json'), 'utf8')) as Partial<Manifest>;
    if (typeof m.pythons !== 'object' || m.pythons === null || typeof m.common !== 'string') {
      return undefined;
    }
    return {
      target: m.target ?? 'unknown',
      os: m.os ?? '',
      machines: m.machines ?? [],
      common: m.common,
      pythons: m.pythons,
      source: m.source ?? 'unknown',
    };
  } catch {
    return undefined;
  }
}

function minorOf(version: string): number {
  const [major, minor] = version.split('.').map(Number);
  return major === 3 ? minor : major > 3 ? Infinity : -1;
}

/** The bundled versions, oldest first. */
function bundledVersions(manifest: Manifest): string[] {
  return Object.keys(manifest.pythons).sort((a, b) => minorOf(a) - minorOf(b));
}

/** Why `python` cannot run the bundle (a few words), or undefined when it can. */
export function unfitReason(python: FoundPython, manifest: Manifest): string | undefined {
  const info = python.info;
  if (info === undefined) {
    return 'does not run';
  }
  const v = info.version;
  if (info.implementation !== 'cpython') {
    return `${info.implementation} ${v}: the bundle is for CPython`;
  }
  if (minorOf(v) < MIN_MINOR) {
    return `${v}, too old: the daemon needs 3.${MIN_MINOR} or newer`;
  }
  if (info.freeThreaded) {
    return `${v} free-threaded: the bundle is for the standard build`;
  }
  if ((manifest.os !== '' && info.os !== manifest.os) || (manifest.machines.length > 0 && !manifest.machines.includes(info.machine))) {
    return `${v} for ${info.os} ${info.machine}: this is the ${manifest.target} build of the extension`;
  }
  if (manifest.pythons[v] === undefined) {
    return `${v}: the bundle has no wheels for ${v}`;
  }
  return undefined;
}

/** The first Python found that can run the bundle. */
export function pickPython(found: readonly FoundPython[], manifest: Manifest): FoundPython | undefined {
  return found.find((p) => unfitReason(p, manifest) === undefined);
}

/** Why no Python fits, and what to do about it. */
export function noPythonMessage(found: readonly FoundPython[], manifest: Manifest, configured: string): string {
  const versions = bundledVersions(manifest);
  const needs = versions.length > 0 ? `CPython ${versions.join(', ').replace(/, ([^,]*)$/, ' or $1')}` : 'a Python it was built for (the bundle is empty)';
  const seen = found.length > 0
    ? found.map((p) => `${p.command} ${unfitReason(p, manifest) ?? p.info?.version ?? ''}`).join('; ')
    : configured !== '' ? `"${configured}" not found` : 'no python3 on PATH';
  const newest = versions[versions.length - 1] ?? `3.${MIN_MINOR}`;
  // A Python too new for the bundle can still install the daemon from PyPI, where pip builds or fetches what it needs.
  const newer = found.find((p) => p.info?.implementation === 'cpython' && minorOf(p.info.version) > minorOf(newest));
  const pipFix = newer !== undefined
    ? `install harness9 with it (${newer.command} -m pip install harness9)`
    : 'install harness9 (pip install harness9)';
  return `harness9 is not on PATH, and the daemon bundled with the extension needs ${needs} (found: ${seen}). `
    + `Install Python ${newest} and set "harness9.python" to it, or ${pipFix} and set "harness9.serverCommand"`;
}

interface Ran {
  readonly ok: boolean;
  readonly stdout: string;
  readonly stderr: string;
}

function run(command: string, args: string[], env?: NodeJS.ProcessEnv): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: 120_000, env }, (err, stdout, stderr) => resolve({ ok: !err, stdout, stderr }));
  });
}

/** What `command` says of itself; undefined when it does not run. */
export async function probePython(command: string): Promise<PythonInfo | undefined> {
  const ran = await run(command, ['-c', PROBE]);
  if (!ran.ok) {
    return undefined;
  }
  try {
    return JSON.parse(ran.stdout) as PythonInfo;
  } catch {
    return undefined;
  }
}

/** The environment the bundled daemon runs in, on top of the editor's. */
function daemonEnv(dir: string): Record<string, string> {
  return { PYTHONPATH: dir, PYTHONNOUSERSITE: '1' };
}

/**
 * The folder common + the archive for `version` are unpacked in (under `storageDir`, once per
 * bundle source; a half-done or failing unpacking is never used), or why it cannot be used.
 */
export async function unpacked(
  python: string,
  daemonDir: string,
  storageDir: string,
  manifest: Manifest,
  version: string,
): Promise<{ dir: string } | { error: string }> {
  const part = manifest.pythons[version];
  const dest = path.join(storageDir, `daemon-py${version}-${manifest.source.slice(0, 12)}`);
  if (fs.existsSync(path.join(dest, '.complete'))) {
    return { dir: dest };
  }
  const tmp = `${dest}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp, { recursive: true });
  try {
    for (const archive of [manifest.common, part.archive]) {
      const file = path.join(daemonDir, archive);
      const ran = await run(python, ['-m', 'zipfile', '-e', file, tmp]);
      if (!ran.ok) {
        return { error: `could not unpack the bundled daemon (${file}) into ${storageDir}: ${lastLine(ran.stderr)}` };
      }
    }
    const check = await run(python, ['-s', '-c', CHECK, ...part.imports], { ...process.env, ...daemonEnv(tmp) });
    if (!check.ok) {
      return {
        error: `the daemon bundled with the extension does not load in ${python} (Python ${version}): ${lastLine(check.stderr)}. `
          + 'Set "harness9.python" to another Python 3.11 or newer, or install harness9 (pip install harness9) and set "harness9.serverCommand"',
      };
    }
    fs.writeFileSync(path.join(tmp, '.complete'), manifest.source);
    fs.rmSync(dest, { recursive: true, force: true });
    fs.renameSync(tmp, dest);
    return { dir: dest };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

function lastLine(text: string): string {
  return text.trim().split('\n').pop() ?? '';
}

/**
 * How to run the bundled daemon: a command, an error naming the fix, or undefined when the
 * extension has no bundle. `configured` is `harness9.python` (empty: look on PATH); the archives
 * are unpacked under `storageDir`.
 */
export async function bundledDaemon(
  daemonDir: string,
  storageDir: string,
  configured: string,
  envPath: string | undefined,
): Promise<BundledCommand | { error: string } | undefined> {
  const manifest = readManifest(daemonDir);
  if (manifest === undefined) {
    return undefined;
  }
  const found: FoundPython[] = [];
  const seen = new Set<string>();
  let failed: { error: string } | undefined; // the first fitting Python the bundle did not load in
  for (const candidate of configured !== '' ? [configured] : CANDIDATES) {
    const exe = findExecutable(candidate, envPath);
    if (exe === undefined || seen.has(exe)) {
      continue;
    }
    seen.add(exe);
    const python: FoundPython = { command: exe, info: await probePython(exe) };
    found.push(python);
    if (python.info !== undefined && unfitReason(python, manifest) === undefined) {
      const got = await unpacked(exe, daemonDir, storageDir, manifest, python.info.version);
      if (!('error' in got)) {
        return { argv: [exe, '-s', '-m', 'harness9', 'serve'], env: daemonEnv(got.dir) };
      }
      failed ??= got; // a Python that looks right but cannot load it: the next one may
    }
  }
  return failed ?? { error: noPythonMessage(found, manifest, configured) };
}
