/** A hover's contents as the one text the daemon's hover tool gives the model. */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hoverText } from '../../src/hoverText';

describe('hoverText', () => {
  it('joins Markdown, plain and code parts with blank lines, code fenced with its language', () => {
    const text = hoverText([
      { value: '```typescript\nfunction greet(name: string): string\n```' },
      'Greets someone.',
      { language: 'typescript', value: 'const x: number' },
    ]);
    assert.equal(text, '```typescript\nfunction greet(name: string): string\n```\n\nGreets someone.\n\n```typescript\nconst x: number\n```');
  });

  it('leaves out empty parts; nothing to say is an empty text', () => {
    assert.equal(hoverText([{ value: '  ' }, '', 'x']), 'x');
    assert.equal(hoverText([]), '');
  });
});
