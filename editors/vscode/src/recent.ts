/**
 * The chats an empty chat view offers: the workspace's stored sessions, newest first, each a
 * click away. Pure (no `vscode`): the webview renders it, the unit tests check it.
 */
import { esc } from './render';
import { type SessionSummary, sessionRow } from './sessions';

/** How many chats the empty view lists; "All chats…" opens the full list. */
export const RECENT_SHOWN = 5;

/** The empty view's list of recent chats (nothing when there are none). */
export function renderRecent(sessions: readonly SessionSummary[], now: number): string {
  if (sessions.length === 0) {
    return '';
  }
  const rows = sessions.slice(0, RECENT_SHOWN).map((s) => {
    const { label, description } = sessionRow(s, now);
    const facts = description ? ` <span class="meta">${esc(description)}</span>` : '';
    return `<li><button type="button" class="link" data-action="open-session" data-session="${esc(s.sessionId)}" title="Continue this chat">${esc(label)}</button>${facts}</li>`;
  });
  const all = sessions.length > RECENT_SHOWN
    ? `<button type="button" class="link" data-action="all-sessions">All ${sessions.length} chats…</button>`
    : '';
  return `<section class="recent" aria-label="recent chats"><h3>Recent chats</h3><ul>${rows.join('')}</ul>${all}</section>`;
}
