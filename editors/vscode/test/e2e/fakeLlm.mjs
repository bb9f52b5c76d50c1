// The repository's fake LLM service (tests/fakellm) as a child process: an OpenAI-compatible
// endpoint on loopback that answers from a script and lists the requests it received, so a
// test can check what the model was sent. In front of it, the service's model list
// (`GET …/models`, OpenAI's shape), which the daemon's agent/models reads.
import { spawn } from 'node:child_process';
import * as http from 'node:http';
import * as readline from 'node:readline';

/** The models `GET …/models` lists, by id. */
export const FAKE_MODELS = ['fake-model', 'gpt-5-mini', 'fake-model-large'];

/**
 * A loopback server that answers `GET …/models` itself and passes every other request on to
 * `target` (streams included); resolves with it and its base URL.
 */
function modelListFront(target) {
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && (req.url ?? '').split('?')[0].endsWith('/models')) {
      const data = FAKE_MODELS.map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'fake' }));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data }));
      return;
    }
    const upstream = http.request(new URL(req.url ?? '/', target), { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve({ server, baseUrl: `http://127.0.0.1:${server.address().port}` }));
  });
}

/** Starts `python -m tests.fakellm` in `repo`, with the model list in front; resolves once it serves. */
export async function startFakeLLM(python, repo) {
  const child = spawn(python, ['-m', 'tests.fakellm'], { cwd: repo, stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = readline.createInterface({ input: child.stdout });
  const waiting = [];
  lines.on('line', (line) => waiting.shift()?.(line));
  const next = () => new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the fake LLM did not answer within 10 s')), 10_000);
    waiting.push((line) => {
      clearTimeout(timer);
      resolve(line);
    });
  });
  const command = async (line) => {
    const answer = next();
    child.stdin.write(`${line}\n`);
    return answer;
  };
  const front = await modelListFront(await next());
  const baseUrl = front.baseUrl;
  return {
    /** `http://127.0.0.1:<port>`; OpenAI clients use `${baseUrl}/v1`. */
    baseUrl,
    /** Appends turns (the replay format's `{text, tool_calls}`) to what it answers. */
    async script(turns) {
      const answer = await command(`script ${JSON.stringify(turns)}`);
      if (answer !== 'ok') {
        throw new Error(`the fake LLM refused the script: ${answer}`);
      }
    },
    /** Every request received so far: `{wire, path, body}`. */
    async requests() {
      return JSON.parse(await command('requests'));
    },
    /** Ends it (end of input). */
    stop() {
      front.server.closeAllConnections();
      front.server.close();
      child.stdin.end();
      return new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', resolve)));
    },
  };
}
