/**
 * The chat view's page: the conversation, the open questions and the prompt box with its
 * buttons, under a content security policy that lets only the bundled script and style in.
 */
import * as crypto from 'node:crypto';
import * as vscode from 'vscode';

/** The page of the chat view's webview, its script and style from `dist`. */
export function chatHtml(webview: vscode.Webview, dist: vscode.Uri): string {
  const nonce = crypto.randomBytes(16).toString('base64');
  const script = webview.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.js'));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.css'));
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style.toString()}">
<title>harness9 Chat</title></head>
<body>
<div id="scroll"><main id="runs" aria-label="conversation"></main><aside id="approvals" aria-live="assertive"></aside></div>
<footer id="composer">
<div id="chips" aria-label="attached context"></div>
<textarea id="prompt" rows="3" aria-label="prompt" placeholder="Ask harness9 to do something (Enter sends, Shift+Enter new line, Up recalls)"></textarea>
<div class="composer-bar">
<button type="button" class="chip-add" data-attach="selection" title="Attach the selected text of the active editor">+ Selection</button>
<button type="button" class="chip-add" data-attach="file" title="Attach the active file">+ File</button>
<button type="button" class="chip-add" data-attach="problems" title="Attach the active file's problems (diagnostics)">+ Problems</button>
<span class="send-group">
<button type="button" id="plan-toggle" class="toggle" aria-pressed="false" hidden title="Plan first: the agent investigates and writes a plan, changing nothing; Go then carries it out">Plan first</button>
<button type="button" id="stop" class="danger" hidden>Stop</button>
<button type="button" id="queue" class="secondary" hidden title="Run this prompt after the run in progress (and any queued before it); Ctrl+Enter">Queue</button>
<button type="button" id="background" class="secondary" hidden title="Run in background: the agent works on this prompt in a git worktree of its own, beside the chat; the Background Tasks list shows it, Apply brings its changes in">Run in background</button>
<button type="button" id="send" class="primary">Send</button>
</span>
</div>
<div id="menu" role="listbox" hidden></div>
<div class="composer-foot"><span class="foot-models"><button type="button" class="picker" id="model" title="The model of this chat (harness9: Select Model)" aria-haspopup="listbox">model ▾</button>
<button type="button" class="picker" id="effort" hidden title="Reasoning effort of the model" aria-haspopup="listbox"></button>
<span id="model-errors" hidden>⚠</span></span>
<span class="foot-rest"><span id="fill"></span><span class="spacer"></span>
<button type="button" class="link" id="sessions" hidden>Sessions</button>
<button type="button" class="link" id="new-chat">New chat</button></span></div>
</footer>
<script nonce="${nonce}" src="${script.toString()}"></script></body></html>`;
}
