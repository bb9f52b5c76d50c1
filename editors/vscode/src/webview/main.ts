/**
 * Script of the run view's webview: renders the run states the extension posts, keeping which
 * items the reader opened and following the bottom while the reader is there; shows the open
 * approval questions and sends back the answer the user clicks.
 */
import type { ApprovalCard } from '../approvals';
import { renderApprovalCard, renderRuns } from '../render';
import type { RunState } from '../runState';

interface VsCodeApi {
  postMessage(message: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

type Incoming =
  | { type: 'runs'; runs: RunState[] }
  | { type: 'approvals'; approvals: ApprovalCard[] }
  | { type: 'focusApproval' };

const vscode = acquireVsCodeApi();
const root = document.getElementById('runs') as HTMLElement;
const questions = document.getElementById('approvals') as HTMLElement;

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

/**
 * Shows exactly the questions posted. Cards already shown are kept as they are, so a reason
 * being typed and the focus survive; new ones are added, answered or withdrawn ones removed.
 */
function paintApprovals(cards: ApprovalCard[]): void {
  const scroller = document.scrollingElement ?? document.documentElement;
  const atBottom = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 40;
  const wanted = new Set(cards.map((c) => c.id));
  questions.querySelectorAll<HTMLElement>('[data-approval]').forEach((el) => {
    if (!wanted.has(el.dataset.approval ?? '')) {
      el.remove();
    }
  });
  for (const card of cards) {
    if (!cardElement(card.id)) {
      questions.insertAdjacentHTML('beforeend', renderApprovalCard(card));
      const added = cardElement(card.id);
      if (added && document.hasFocus() && !questions.contains(document.activeElement)) {
        firstButton(added)?.focus();
      }
    }
  }
  document.body.classList.toggle('asking', cards.length > 0);
  // Keep the reader at the end, where the waiting call is, rather than under the card.
  if (atBottom) {
    scroller.scrollTop = scroller.scrollHeight;
  }
}

function cardElement(id: string): HTMLElement | undefined {
  return Array.from(questions.querySelectorAll<HTMLElement>('[data-approval]')).find((el) => el.dataset.approval === id);
}

function firstButton(card: Element): HTMLButtonElement | null {
  return card.querySelector<HTMLButtonElement>('button[data-decision]');
}

function decide(card: HTMLElement, decision: string): void {
  const reason = card.querySelector<HTMLTextAreaElement>('textarea.reason')?.value ?? '';
  // One answer per question: the card waits for the extension to withdraw it.
  card.querySelectorAll('button').forEach((b) => b.setAttribute('disabled', ''));
  card.classList.add('answered');
  vscode.postMessage({ type: 'decide', id: card.dataset.approval, decision, message: reason });
}

// Run actions: open a changed file, restore a checkpoint (the extension asks to confirm).
root.addEventListener('click', (event) => {
  const target = (event.target as HTMLElement).closest<HTMLElement>('[data-action]');
  const index = Number(target?.closest<HTMLElement>('article.run')?.dataset.index);
  if (!target || !Number.isInteger(index)) {
    return;
  }
  if (target.dataset.action === 'open-file') {
    vscode.postMessage({ type: 'openFile', run: index, path: target.dataset.path });
  } else if (target.dataset.action === 'restore') {
    vscode.postMessage({ type: 'restore', run: index, checkpointId: target.dataset.checkpoint });
  }
});

questions.addEventListener('click', (event) => {
  const target = event.target as HTMLElement;
  const card = target.closest<HTMLElement>('[data-approval]');
  if (!card || card.classList.contains('answered')) {
    return;
  }
  const decision = target.closest<HTMLElement>('button[data-decision]')?.dataset.decision;
  if (decision) {
    decide(card, decision);
  } else if (target.closest('[data-action="open-diff"]')) {
    vscode.postMessage({ type: 'openDiff', id: card.dataset.approval });
  }
});

// Ctrl/Cmd+Enter in the reason box rejects with that reason.
questions.addEventListener('keydown', (event) => {
  const target = event.target as HTMLElement;
  const card = target.closest<HTMLElement>('[data-approval]');
  if (card && target.matches('textarea.reason') && event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    decide(card, 'reject');
  }
});

window.addEventListener('message', (event: MessageEvent<Incoming>) => {
  const m = event.data;
  if (m?.type === 'runs' && Array.isArray(m.runs)) {
    paint(m.runs);
  } else if (m?.type === 'approvals' && Array.isArray(m.approvals)) {
    paintApprovals(m.approvals);
  } else if (m?.type === 'focusApproval') {
    const first = questions.querySelector('[data-approval]');
    if (first) {
      firstButton(first)?.focus();
    }
  }
});

paint([]);
vscode.postMessage({ type: 'ready' });
