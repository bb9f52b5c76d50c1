/**
 * The daemon bundled with the extension (dist/daemon/py<X.Y>.zip, see bundle-daemon.mjs): used
 * when `harness9` is not on PATH, run with a Python it was installed for (`harness9.python`, else
 * the first of python3.13 … python3 on PATH whose version has an archive), from a copy unpacked
 * once into the extension's storage. No `vscode` import.
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

/** A Python found on the machine: its command and version (`3.11`), or why it could not run. */
export interface FoundPython {
  readonly command: string;
  readonly version?: string;
}

const CANDIDATES = ['python3.13', 'python3.12', 'python3.11', 'python3'];

/** A bundle's manifest: the Python versions it was built for and a hash of its sources. */
export interface Manifest {
  readonly pythons: string[];
  readonly source: string;
}

/** The bundle's manifest; undefined without a bundle. */
export function readManifest(daemonDir: string): Manifest | undefined {
  try {
    const m = JSON.parse(fs.readFileSync(path.join(daemonDir, 'manifest.json'), 'utf8')) as { pythons?: unknown; source?: unknown };
    const pythons = Array.isArray(m.pythons) ? m.pythons.filter((v): v is string => typeof v === 'string') : [];
    return { pythons, source: typeof m.source === 'string' ? m.source : 'unknown' };
  } catch {
    return undefined;
  }
}

function run(command: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: 120_000 }, (err, stdout) => resolve(err ? undefined : stdout));
  });
}

/**
 * The folder the archive for `version` is unpacked in (under `storageDir`, once per bundle
 * source; a half-done unpacking is never used); undefined when it cannot be unpacked.
 */
export async function unpacked(python: string, daemonDir: string, storageDir: string, version: string, source: string): Promise<string | undefined> {
  const dest = path.join(storageDir, `daemon-py${version}-${source.slice(0, 12)}`);
  if (fs.existsSync(path.join(dest, '.complete'))) {
    return dest;
  }
  const tmp = `${dest}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp, { recursive: true });
  if ((await run(python, ['-m', 'zipfile', '-e', path.join(daemonDir, `py${version}.zip`), tmp])) === undefined) {
    fs.rmSync(tmp, { recursive: true, force: true });
    return undefined;
  }
  fs.writeFileSync(path.join(tmp, '.complete'), source);
  fs.rmSync(dest, { recursive: true, force: true });
  fs.renameSync(tmp, dest);
  return dest;
}

/** The first Python found whose version has a bundle. */
export function pickPython(found: readonly FoundPython[], bundled: readonly string[]): FoundPython | undefined {
  return found.find((p) => p.version !== undefined && bundled.includes(p.version));
}

/** Why no Python fits, and what to do about it. */
export function noPythonMessage(found: readonly FoundPython[], bundled: readonly string[], configured: string): string {
  const needs = bundled.length > 0 ? `Python ${bundled.join(' or ')}` : 'a Python it was built for (the bundle is empty)';
  const seen = found.length > 0
    ? found.map((p) => `${p.command} ${p.version ?? '(does not run)'}`).join(', ')
    : configured !== '' ? `"${configured}" not found` : 'no python3 on PATH';
  return `harness9 is not on PATH, and the daemon bundled with the extension needs ${needs} (found: ${seen}). `
    + `Install Python ${bundled[0] ?? '3.11'} and set "harness9.python" to it, or install harness9 (pip install harness9) `
    + 'and set "harness9.serverCommand"';
}

/** `3.11` for a Python command, undefined when it does not run. */
export async function pythonVersion(command: string): Promise<string | undefined> {
  return (await run(command, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])']))?.trim() || undefined;
}

/**
 * How to run the bundled daemon: a command, an error naming the fix, or undefined when the
 * extension has no bundle. `configured` is `harness9.python` (empty: look on PATH); the archive
 * is unpacked under `storageDir`.
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
  const bundled = manifest.pythons;
  const found: FoundPython[] = [];
  const seen = new Set<string>();
  for (const candidate of configured !== '' ? [configured] : CANDIDATES) {
    const exe = findExecutable(candidate, envPath);
    if (exe === undefined || seen.has(exe)) {
      continue;
    }
    seen.add(exe);
    found.push({ command: exe, version: await pythonVersion(exe) });
    const pick = pickPython(found, bundled);
    if (pick?.version !== undefined) {
      const dir = await unpacked(pick.command, daemonDir, storageDir, pick.version, manifest.source);
      if (dir === undefined) {
        return { error: `could not unpack the bundled daemon (${path.join(daemonDir, `py${pick.version}.zip`)}) into ${storageDir}` };
      }
      return { argv: [pick.command, '-s', '-m', 'harness9', 'serve'], env: { PYTHONPATH: dir, PYTHONNOUSERSITE: '1' } };
    }
  }
  return { error: noPythonMessage(found, bundled, configured) };
}
