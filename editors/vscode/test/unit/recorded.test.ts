/** The reducer on notification sequences recorded from the real daemon (test/fixtures/record.mjs). */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { renderRuns } from '../../src/render';
import {
  applyRequestError,
  applyResult,
  initialRunState,
  type ProgressNotification,
  reduceAll,
  type RunState,
} from '../../src/runState';

interface Recording {
  notifications: ProgressNotification[];
  answer: { result?: Record<string, unknown>; error?: { code: number; message: string } };
}

function replay(name: string): { state: RunState; recording: Recording } {
  const file = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', `daemon-${name}.json`);
  const recording = JSON.parse(fs.readFileSync(file, 'utf8')) as Recording;
  let state = reduceAll(initialRunState('Record me.'), recording.notifications);
  const { result, error } = recording.answer;
  state = result ? applyResult(state, result) : applyRequestError(state, error?.code, error?.message ?? '');
  return { state, recording };
}

describe('recorded from the daemon', () => {
  it('a completed run with two tools', () => {
    const { state, recording } = replay('completed');
    assert.equal(state.status, 'completed');
    assert.equal(state.runId, recording.answer.result?.runId);
    assert.deepEqual(Object.values(state.tools).map((t) => [t.name, t.status]), [['bash', 'ok'], ['read_file', 'ok']]);
    assert.equal(state.tools[state.turns[0].toolCallIds[0]].output, 'hello from bash\n');
    assert.equal(state.turns[0].text, "I'll look around.");
    assert.equal(state.finalText, 'All done: a.txt says hello.');
    assert.equal(state.turnCount, 2);
    assert.ok(state.usage.inputTokens > 0);
  });

  it('delivered twice, or with every notification repeated, gives the same state', () => {
    const { state, recording } = replay('completed');
    const doubled = recording.notifications.flatMap((n) => [n, n]);
    const again = applyResult(
      reduceAll(initialRunState('Record me.'), [...doubled, ...recording.notifications]),
      recording.answer.result ?? {},
    );
    assert.deepEqual(again, state);
  });

  it('failed tools keep their reason and the text the model saw', () => {
    const { state } = replay('tool-failures');
    assert.deepEqual(
      Object.values(state.tools).map((t) => [t.name, t.status, t.reason]),
      [['edit_file', 'failed', 'bad_arguments'], ['no_such_tool', 'failed', 'unknown_tool'], ['read_file', 'failed', 'bad_arguments']],
    );
    assert.match(state.tools[state.turns[0].toolCallIds[1]].output ?? '', /Available tools: read_file/);
    assert.ok(state.turns[0].thinking);
    assert.equal(state.status, 'completed');
  });

  it('a cancelled run: the running tool ends ✗ cancelled and no error is shown', () => {
    const { state } = replay('cancelled');
    assert.equal(state.status, 'cancelled');
    const [tool] = Object.values(state.tools);
    assert.deepEqual([tool.name, tool.status, tool.reason], ['bash', 'failed', 'cancelled']);
    assert.equal(state.error, undefined);
    assert.match(renderRuns([state]), /✗ cancelled/);
  });

  it('a provider error: status error with the kind and message', () => {
    const { state } = replay('provider-error');
    assert.equal(state.status, 'error');
    assert.equal(state.error, 'network: openai: cannot reach the service: All connection attempts failed');
    assert.equal(state.finalText, undefined);
    assert.match(renderRuns([state]), /class="error">network: openai: cannot reach the service/);
  });
});
