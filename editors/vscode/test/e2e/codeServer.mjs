// A real VS Code (code-server) for the end-to-end test: installs the .vsix into a fresh profile,
// starts the server on loopback, and stops it with everything it spawned.
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Profile folders (user data, extensions) under `root`, with `settings` as the user settings. */
export function makeProfile(root, settings) {
  const userData = path.join(root, 'user-data');
  const extensions = path.join(root, 'extensions');
  fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
  fs.mkdirSync(extensions, { recursive: true });
  writeSettings(userData, settings);
  return { userData, extensions };
}

/** Replaces the user settings; code-server notices the file change and tells the extensions. */
export function writeSettings(userData, settings) {
  fs.writeFileSync(path.join(userData, 'User', 'settings.json'), JSON.stringify(settings, null, 2));
}

function baseArgs(profile) {
  return ['--user-data-dir', profile.userData, '--extensions-dir', profile.extensions];
}

/** Installs a .vsix into the profile with code-server's own CLI. */
export function installExtension(entry, profile, vsix) {
  const r = spawnSync(process.execPath, [entry, ...baseArgs(profile), '--install-extension', vsix], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (r.status !== 0) {
    throw new Error(`installing ${vsix} failed (${r.status}): ${r.stdout}\n${r.stderr}`);
  }
}

/** Starts code-server on 127.0.0.1:port without auth; resolves once it answers HTTP. */
export async function startCodeServer(entry, profile, port, logFile, env) {
  const log = fs.openSync(logFile, 'a');
  const args = [
    entry, ...baseArgs(profile), '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`,
    '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust',
    '--disable-getting-started-override', '--ignore-last-opened',
  ];
  const child = spawn(process.execPath, args, {
    detached: true,
    stdio: ['ignore', log, log],
    env: { ...process.env, ...env },
  });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`code-server exited with ${child.exitCode}; see ${logFile}`);
    }
    if (await answers(port)) {
      return child;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  stopProcessGroup(child);
  throw new Error(`code-server did not answer on port ${port} within 60 s; see ${logFile}`);
}

async function answers(port) {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/healthz`);
    return res.ok;
  } catch {
    return false;
  }
}

/** Ends a detached child and its whole process group; waits up to 10 s for it to exit. */
export async function stopProcessGroup(child) {
  if (child.exitCode !== null || child.signalCode !== null) {
    return;
  }
  const exited = new Promise((r) => child.once('exit', r));
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    return;
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }, 10_000);
  await exited;
  clearTimeout(timer);
}
