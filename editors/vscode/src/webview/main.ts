/**
 * Script of the chat view's webview: renders the run states the extension posts (keeping which
 * rows the reader opened, and following the bottom while the reader is there), the open approval
 * questions, and the prompt box with its chips; sends back what the user does.
 */
import type { ApprovalCard } from '../approvals';
import type { ChipView } from '../chips';
import { askerOf, contextFill, esc, renderApprovalCard, renderRuns } from '../render';
import { renderRecent } from '../recent';
import type { RunState } from '../runState';
import type { SessionSummary } from '../sessions';
import type { ModelsState } from '../runView';
import type { SlashCommand } from '../slash';
import { formatDuration } from '../summary';
import { MentionCompletion } from './mentionCompletion';
import { Menu } from './menu';
import { ModelPicker } from './modelPicker';
import { SlashCompletion } from './slashCompletion';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

type Incoming =
  | { type: 'runs'; runs: RunState[] }
  | { type: 'approvals'; approvals: ApprovalCard[] }
  | { type: 'composer'; busy: boolean; chips: ChipView[]; sessions: boolean; steering: boolean; planning: boolean; tasks: boolean }
  | { type: 'focusApproval' }
  | { type: 'focusPrompt' }
  | ({ type: 'models' } & ModelsState)
  | { type: 'commands'; commands: SlashCommand[] }
  | { type: 'recent'; sessions: SessionSummary[] }
  | { type: 'mentionResults'; query: string; paths: string[] };

const vscode = acquireVsCodeApi();
const byId = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const scroller = byId<HTMLElement>('scroll');
const root = byId<HTMLElement>('runs');
const questions = byId<HTMLElement>('approvals');
const prompt = byId<HTMLTextAreaElement>('prompt');
const send = byId<HTMLButtonElement>('send');
const stop = byId<HTMLButtonElement>('stop');
const chips = byId<HTMLElement>('chips');
const fill = byId<HTMLElement>('fill');
const sessions = byId<HTMLButtonElement>('sessions');
const queue = byId<HTMLButtonElement>('queue');
const planToggle = byId<HTMLButtonElement>('plan-toggle');
const background = byId<HTMLButtonElement>('background');
const menu = new Menu(byId<HTMLElement>('menu'));
const post = (message: unknown): void => vscode.postMessage(message);
const slash = new SlashCompletion(menu, prompt, post);
const mentions = new MentionCompletion(menu, prompt, post);
const picker = new ModelPicker(menu, {
  model: byId<HTMLButtonElement>('model'),
  effort: byId<HTMLButtonElement>('effort'),
  errors: byId<HTMLElement>('model-errors'),
}, post);

/** Prompts sent in this view, oldest first (Up walks back through them). */
const history: string[] = ((vscode.getState() as { history?: string[] } | undefined)?.history ?? []).slice(-50);
let historyAt = history.length;
let busy = false;
let steering = false;
let shownRuns: RunState[] = [];
/** The questions shown, whose asker (a child agent's task) the runs may name only later. */
let shownCards: ApprovalCard[] = [];
/** The chats the empty view lists. */
let recent: SessionSummary[] = [];

function nearBottom(): boolean {
  return scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 40;
}

// The conversation's box shrinks when the prompt box grows (chips, a longer prompt) or an
// approval card appears: a reader who was at the end stays at the end.
let atEnd = true;
scroller.addEventListener('scroll', () => {
  atEnd = nearBottom();
});
new ResizeObserver(() => {
  if (atEnd) {
    scroller.scrollTop = scroller.scrollHeight;
  }
}).observe(scroller);

/** Whether each keyed row is open, as the reader left it (a task row renders open while it runs). */
function openKeys(): Map<string, boolean> {
  const keys = new Map<string, boolean>();
  root.querySelectorAll('details[data-key]').forEach((d) => {
    const key = d.getAttribute('data-key');
    if (key) {
      keys.set(key, d.hasAttribute('open'));
    }
  });
  return keys;
}

function paint(runs: RunState[]): void {
  shownRuns = runs;
  const open = openKeys();
  const atBottom = nearBottom();
  root.innerHTML = renderRuns(runs, Date.now()) + (runs.length === 0 ? renderRecent(recent, Date.now()) : '');
  root.querySelectorAll('details[data-key]').forEach((d) => {
    const was = open.get(d.getAttribute('data-key') ?? '');
    if (was !== undefined) {
      d.toggleAttribute('open', was);
    }
  });
  for (const card of shownCards) {
    const who = cardElement(card.id)?.querySelector('.approval-who');
    if (who) {
      who.textContent = askerOf(card, runs);
    }
  }
  const f = contextFill(runs);
  fill.textContent = f?.text ?? '';
  fill.style.setProperty('--fill', f ? `${Math.round(f.fraction * 100)}%` : '0%');
  fill.classList.toggle('high', (f?.fraction ?? 0) > 0.8);
  if (atBottom) {
    scroller.scrollTop = scroller.scrollHeight;
  }
}

/** A running call's elapsed time, updated in place once a second (no repaint, no lost selection). */
function tick(): void {
  const now = Date.now();
  root.querySelectorAll<HTMLElement>('[data-started]').forEach((el) => {
    el.textContent = formatDuration(now - Number(el.dataset.started));
  });
}
setInterval(tick, 1000);

/**
 * Shows exactly the questions posted. Cards already shown are kept as they are, so a reason
 * being typed and the focus survive; new ones are added, answered or withdrawn ones removed.
 */
function paintApprovals(cards: ApprovalCard[]): void {
  shownCards = cards;
  const atBottom = nearBottom();
  const wanted = new Set(cards.map((c) => c.id));
  questions.querySelectorAll<HTMLElement>('[data-approval]').forEach((el) => {
    if (!wanted.has(el.dataset.approval ?? '')) {
      el.remove();
    }
  });
  for (const card of cards) {
    if (!cardElement(card.id)) {
      questions.insertAdjacentHTML('beforeend', renderApprovalCard(card, shownRuns));
      const added = cardElement(card.id);
      if (added && document.hasFocus() && !questions.contains(document.activeElement)) {
        firstButton(added)?.focus();
      }
    }
  }
  document.body.classList.toggle('asking', cards.length > 0);
  // Keep the reader at the end, where the waiting call is, rather than above the card.
  if (atBottom || cards.length > 0) {
    scroller.scrollTop = scroller.scrollHeight;
  }
}

const IDLE_PLACEHOLDER = prompt.placeholder;
const STEER_PLACEHOLDER = 'Tell the agent while it works (Enter: it reads this at its next step; Queue: run it afterwards)';

function paintComposer(m: { busy: boolean; chips: ChipView[]; sessions: boolean; steering: boolean; planning: boolean; tasks: boolean }): void {
  busy = m.busy;
  steering = m.steering;
  document.body.classList.toggle('busy', busy);
  stop.hidden = !busy;
  // While a run goes the box stays open: Enter steers it, Queue runs the prompt after it.
  send.disabled = busy && !steering;
  send.textContent = busy && steering ? 'Steer' : 'Send';
  send.title = busy && steering ? 'Send this into the running run: the agent reads it at its next step' : '';
  queue.hidden = !(busy && steering);
  prompt.placeholder = busy && steering ? STEER_PLACEHOLDER : IDLE_PLACEHOLDER;
  // While a run goes, room for Stop and Queue: plan first is for a new run.
  planToggle.hidden = !m.planning || busy;
  // A background task goes beside whatever the chat does.
  background.hidden = !m.tasks;
  sessions.hidden = !m.sessions;
  chips.innerHTML = m.chips
    .map((c, i) => `<span class="chip ${esc(c.kind)}" title="${esc(c.title)}">${esc(c.label)}<button type="button" class="chip-remove" data-remove="${i}" aria-label="${esc(`remove ${c.label}`)}">×</button></span>`)
    .join('');
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

/** Sends the prompt box: a run, a message into the running one, (`toQueue`) a queued prompt, or a background task. */
function submit(toQueue = false, inBackground = false): void {
  const text = prompt.value.trim();
  if (text === '' || (busy && !steering && !inBackground)) {
    return;
  }
  if (history[history.length - 1] !== text) {
    history.push(text);
  }
  historyAt = history.length;
  vscode.setState({ history: history.slice(-50) });
  if (inBackground) {
    vscode.postMessage({ type: 'send', prompt: text, background: true });
    menu.close();
    prompt.value = '';
    return;
  }
  const plan = planToggle.getAttribute('aria-pressed') === 'true' && !busy;
  vscode.postMessage({ type: 'send', prompt: text, queue: busy && toQueue, plan });
  menu.close();
  if (plan) {
    setPlanFirst(false); // for one prompt
  }
  prompt.value = '';
}

function setPlanFirst(on: boolean): void {
  planToggle.setAttribute('aria-pressed', String(on));
  planToggle.classList.toggle('on', on);
}

// Run actions: open a changed file or a change's diff, review the run's changes, restore a checkpoint.
root.addEventListener('click', (event) => {
  const target = (event.target as HTMLElement).closest<HTMLElement>('[data-action]');
  if (target?.dataset.action === 'open-session' || target?.dataset.action === 'all-sessions') {
    // The empty view's recent chats: continue one, or pick among all.
    vscode.postMessage(target.dataset.session ? { type: 'openSession', sessionId: target.dataset.session } : { type: 'sessions' });
    return;
  }
  const index = Number(target?.closest<HTMLElement>('article.run')?.dataset.index);
  if (!target || !Number.isInteger(index)) {
    return;
  }
  const action = target.dataset.action;
  if (action === 'open-file') {
    const line = Number(target.dataset.line);
    const column = Number(target.dataset.column);
    vscode.postMessage({
      type: 'openFile', run: index, path: target.dataset.path,
      ...(Number.isInteger(line) && line > 0 ? { line, column: Number.isInteger(column) && column > 0 ? column : 1 } : {}),
    });
  } else if (action === 'open-change') {
    vscode.postMessage({ type: 'openChange', run: index, toolCallId: target.dataset.call });
  } else if (action === 'review') {
    vscode.postMessage({ type: 'review', run: index });
  } else if (action === 'restore' || action === 'review-since') {
    vscode.postMessage({ type: action === 'restore' ? 'restore' : 'reviewSince', run: index, checkpointId: target.dataset.checkpoint });
  } else if (action === 'unqueue') {
    target.setAttribute('disabled', '');
    vscode.postMessage({ type: 'unqueue', run: index });
  } else if (action === 'execute-plan' && !busy) {
    target.setAttribute('disabled', '');
    vscode.postMessage({ type: 'executePlan', run: index });
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
  } else if (target.closest('[data-action="edit-first"]')) {
    vscode.postMessage({ type: 'editFirst', id: card.dataset.approval });
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

// Enter sends, Shift+Enter is a new line, Up on the first line recalls earlier prompts.
prompt.addEventListener('keydown', (event) => {
  // A command typed in full runs on Enter; otherwise an open list (commands, models) takes the
  // arrows, Enter, Tab and Escape first.
  if (menu.kind === 'slash' && event.key === 'Enter' && slash.complete()) {
    menu.close();
  } else if (menu.kind === 'slash' && event.key === 'Escape') {
    slash.dismiss();
    menu.key(event);
    return;
  } else if (menu.key(event)) {
    return;
  }
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    submit(event.ctrlKey || event.metaKey); // Ctrl+Enter queues while a run goes
  } else if (event.key === 'ArrowUp' && historyAt > 0 && !prompt.value.slice(0, prompt.selectionStart).includes('\n')) {
    event.preventDefault();
    historyAt -= 1;
    prompt.value = history[historyAt];
  } else if (event.key === 'ArrowDown' && historyAt < history.length && !prompt.value.slice(prompt.selectionEnd).includes('\n')) {
    event.preventDefault();
    historyAt += 1;
    prompt.value = history[historyAt] ?? '';
  }
});

send.addEventListener('click', () => submit());
queue.addEventListener('click', () => submit(true));
background.addEventListener('click', () => submit(false, true));
planToggle.addEventListener('click', () => setPlanFirst(planToggle.getAttribute('aria-pressed') !== 'true'));
stop.addEventListener('click', () => vscode.postMessage({ type: 'stop' }));
byId('new-chat').addEventListener('click', () => vscode.postMessage({ type: 'newChat' }));
sessions.addEventListener('click', () => vscode.postMessage({ type: 'sessions' }));
document.querySelectorAll<HTMLElement>('[data-attach]').forEach((b) =>
  b.addEventListener('click', () => vscode.postMessage({ type: 'attach', kind: b.dataset.attach })),
);
chips.addEventListener('click', (event) => {
  const index = (event.target as HTMLElement).closest<HTMLElement>('[data-remove]')?.dataset.remove;
  if (index !== undefined) {
    vscode.postMessage({ type: 'removeChip', index: Number(index) });
  }
});

window.addEventListener('message', (event: MessageEvent<Incoming>) => {
  const m = event.data;
  if (m?.type === 'runs' && Array.isArray(m.runs)) {
    paint(m.runs);
  } else if (m?.type === 'approvals' && Array.isArray(m.approvals)) {
    paintApprovals(m.approvals);
  } else if (m?.type === 'composer') {
    paintComposer(m);
  } else if (m?.type === 'focusApproval') {
    const first = questions.querySelector('[data-approval]');
    if (first) {
      firstButton(first)?.focus();
    }
  } else if (m?.type === 'focusPrompt') {
    prompt.focus();
  } else if (m?.type === 'models' && Array.isArray(m.models)) {
    picker.paint(m);
  } else if (m?.type === 'commands' && Array.isArray(m.commands)) {
    slash.setCommands(m.commands);
  } else if (m?.type === 'mentionResults' && Array.isArray(m.paths)) {
    mentions.show(m.query, m.paths);
  } else if (m?.type === 'recent' && Array.isArray(m.sessions)) {
    recent = m.sessions;
    paint(shownRuns);
  }
});

paint(shownRuns);
vscode.postMessage({ type: 'ready' });
