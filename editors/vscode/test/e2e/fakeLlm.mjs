// The repository's fake LLM service (tests/fakellm) as a child process: an OpenAI-compatible
// endpoint on loopback that answers from a script and lists the requests it received, so a
// test can check what the model was sent.
import { spawn } from 'node:child_process';
import * as readline from 'node:readline';

/** Starts `python -m tests.fakellm` in `repo`; resolves once it serves. */
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
  const baseUrl = await next();
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
      child.stdin.end();
      return new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', resolve)));
    },
  };
}
