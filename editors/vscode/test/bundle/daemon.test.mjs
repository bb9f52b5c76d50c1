// The real bundle (dist/daemon, from `npm run bundle-daemon`) under each Python version it has
// wheels for that is on this machine (PATH, else pyenv's): chosen, unpacked and checked by the
// extension's own code (out/src/bundled.js, from `npm test`), then a real agent run on it
// through LSP over stdio — a scripted model writing a file — and the SDKs' compiled parts
// imported. Run by test.sh after the bundle is built: `npm run test-bundle`.
import * as assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const ext = path.resolve(here, '..', '..');
const daemonDir = path.join(ext, 'dist', 'daemon');
const { bundledDaemon, readManifest } = createRequire(import.meta.url)(path.join(ext, 'out', 'src', 'bundled.js'));

/** A Python `version` on this machine: python3.X on PATH (not a pyenv shim, which may not run), else pyenv's. */
function pythonOf(version) {
  const pyenv = path.join(process.env.PYENV_ROOT ?? path.join(os.homedir(), '.pyenv'), 'versions');
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter((d) => d !== '' && !d.includes(`${path.sep}shims`));
  if (fs.existsSync(pyenv)) {
    dirs.push(...fs.readdirSync(pyenv).sort().map((v) => path.join(pyenv, v, 'bin')));
  }
  return dirs.map((d) => path.join(d, `python${version}`)).find((f) => fs.existsSync(f));
}

/** A minimal LSP client over a child's stdio: `request(method, params)` resolves with the result. */
function lspClient(child) {
  let buffer = Buffer.alloc(0);
  let nextId = 1;
  const pending = new Map();
  child.stdout.on('data', (chunk) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      const end = buffer.indexOf('\r\n\r\n');
      if (end < 0) {
        return;
      }
      const length = Number(/Content-Length: (\d+)/i.exec(buffer.subarray(0, end).toString())?.[1]);
      if (buffer.length < end + 4 + length) {
        return;
      }
      const message = JSON.parse(buffer.subarray(end + 4, end + 4 + length).toString());
      buffer = buffer.subarray(end + 4 + length);
      if (message.id !== undefined && pending.has(message.id) && message.method === undefined) {
        const { resolve, reject } = pending.get(message.id);
        pending.delete(message.id);
        message.error ? reject(new Error(JSON.stringify(message.error))) : resolve(message.result);
      }
    }
  });
  const send = (message) => {
    const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', ...message }));
    child.stdin.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]));
  };
  return {
    request: (method, params) => new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      send({ id, method, params });
    }),
    notify: (method, params) => send({ method, params }),
  };
}

const manifest = readManifest(daemonDir);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'h9-bundle-test-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe(`the bundled daemon (${manifest?.target ?? 'not built'})`, () => {
  it('is built, for 3.11 and newer', () => {
    assert.ok(manifest, `no bundle in ${daemonDir}: run npm run bundle-daemon`);
    assert.ok(Object.keys(manifest.pythons).includes('3.11'), JSON.stringify(Object.keys(manifest.pythons)));
  });

  const ran = [];
  for (const version of Object.keys(manifest?.pythons ?? {})) {
    const python = pythonOf(version);
    it(`runs an agent under Python ${version}`, { skip: python === undefined && `no Python ${version} on this machine` }, async () => {
      const storage = path.join(tmp, `storage-${version}`);
      const got = await bundledDaemon(daemonDir, storage, python, process.env.PATH);
      assert.ok(got && 'argv' in got, JSON.stringify(got));
      assert.equal(got.argv[0], python);
      const env = { ...process.env, ...got.env, HOME: tmp, HARNESS9_STATE_DIR: path.join(tmp, `state-${version}`) };

      // The SDKs and their compiled parts load from the bundle, not from anywhere else.
      const where = execFileSync(python, ['-s', '-c', 'import openai, anthropic, mcp, acp, pygls, jsonschema, pydantic_core, jiter; '
        + 'from cryptography.hazmat.primitives import hashes; print(pydantic_core.__file__)'], { env, encoding: 'utf8' });
      assert.ok(where.startsWith(got.env.PYTHONPATH), where);

      const workspace = path.join(tmp, `ws-${version}`);
      fs.mkdirSync(workspace);
      const replay = path.join(tmp, `replay-${version}.json`);
      fs.writeFileSync(replay, JSON.stringify({
        turns: [
          { text: '', tool_calls: [{ name: 'write_file', arguments: { path: 'hello.txt', content: `written under ${version}\n` } }] },
          { text: 'Done.' },
        ],
      }));
      const child = spawn(got.argv[0], got.argv.slice(1), {
        cwd: workspace,
        env: { ...env, HARNESS9_PROVIDER: 'replay', HARNESS9_REPLAY: replay, HARNESS9_APPROVALS: 'yolo' },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d) => { stderr += d; });
      try {
        const client = lspClient(child);
        const init = await client.request('initialize', { processId: process.pid, rootUri: `file://${workspace}`, capabilities: {} });
        assert.ok(init.capabilities.experimental.harness9, JSON.stringify(init));
        client.notify('initialized', {});
        const result = await client.request('agent/run', { prompt: 'Write hello.txt', stream: false });
        assert.equal(result.status, 'completed', stderr);
        assert.equal(result.text, 'Done.');
        assert.equal(fs.readFileSync(path.join(workspace, 'hello.txt'), 'utf8'), `written under ${version}\n`);
        await client.request('shutdown', null);
        client.notify('exit', null);
      } finally {
        child.kill();
      }
      ran.push(version);
    });
  }

  // A machine without another Python cannot prove the other versions: said, not failed, since
  // no registry this test may use ships CPython itself.
  const others = Object.keys(manifest?.pythons ?? {}).filter((v) => v !== '3.11' && pythonOf(v) !== undefined);
  it('ran under a Python other than 3.11', { skip: others.length === 0 && 'no Python other than 3.11 on this machine' }, () => {
    assert.ok(ran.some((v) => v !== '3.11'), `ran only under ${ran.join(', ') || 'none'}: install python3.12 or python3.13`);
  });
});
