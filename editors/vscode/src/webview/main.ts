/**
 * Script of the run view's webview: renders the run states the extension posts, keeping which
 * items the reader opened and following the bottom while the reader is there.
 */
import { renderRuns } from '../render';
import type { RunState } from '../runState';

interface VsCodeApi {
  postMessage(message: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const root = document.getElementById('runs') as HTMLElement;

function openKeys(): Set<string> {
  const keys = new Set<string>();
  root.querySelectorAll('details[open]').forEach((d) => {
    const key = d.getAttribute('data-key');
    if (key) {
      keys.add(key);
    }
  });
  return keys;
}

function paint(runs: RunState[]): void {
  const open = openKeys();
  const scroller = document.scrollingElement ?? document.documentElement;
  const atBottom = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 40;
  root.innerHTML = renderRuns(runs);
  root.querySelectorAll('details[data-key]').forEach((d) => {
    if (open.has(d.getAttribute('data-key') ?? '')) {
      d.setAttribute('open', '');
    }
  });
  if (atBottom) {
    scroller.scrollTop = scroller.scrollHeight;
  }
}

window.addEventListener('message', (event: MessageEvent<{ type?: string; runs?: RunState[] }>) => {
  if (event.data?.type === 'runs' && Array.isArray(event.data.runs)) {
    paint(event.data.runs);
  }
});

paint([]);
vscode.postMessage({ type: 'ready' });
