// Driving the VS Code workbench in a browser page like a person: the command palette, input
// boxes, notifications, and the harness9 chat view inside its webview.

/** Opens the command palette (F1, which reaches the workbench even from a webview); its input. */
async function openPalette(page) {
  const input = page.locator('.quick-input-widget input');
  await retry(30_000, async () => {
    await page.keyboard.press('Escape');
    await page.keyboard.press('F1');
    await input.waitFor({ state: 'visible', timeout: 2_000 });
  });
  return input;
}

/** Runs a command from the palette (F1), by its title, clicking its row. */
export async function runCommand(page, title) {
  const input = await openPalette(page);
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
  // Commands of an extension are listed once its host has started, and the palette filters
  // what it had when the text was typed: type again until the row shows.
  await retry(30_000, async () => {
    await input.fill('>');
    await input.fill(`>${title}`);
    await row.waitFor({ state: 'visible', timeout: 3_000 });
  });
  await row.click();
}

/** Calls `attempt` until it does not throw; rethrows its last error after `timeoutMs`. */
async function retry(timeoutMs, attempt) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await attempt();
    } catch (err) {
      if (Date.now() > deadline) {
        throw err;
      }
    }
  }
}

/** Types into the input box titled `titleText` and accepts it; returns the whole title. */
export async function answerInputBox(page, text, titleText = 'harness9') {
  const widget = page.locator('.quick-input-widget', {
    has: page.locator('.quick-input-title', { hasText: titleText }),
  });
  await widget.waitFor({ state: 'visible', timeout: 30_000 });
  const title = (await widget.locator('.quick-input-title').textContent()) ?? '';
  await widget.locator('input').fill(text);
  await page.keyboard.press('Enter');
  return title.trim();
}

/** The frame of the harness9 chat view (VS Code nests a webview two iframes deep). */
export async function runViewFrame(page, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      if (frame === page.mainFrame()) {
        continue;
      }
      const found = await frame.locator('main#runs').count().catch(() => 0);
      if (found > 0) {
        return frame;
      }
    }
    await page.waitForTimeout(200);
  }
  throw new Error('the harness9 chat view did not appear');
}

/** What the chat shows for the run at `index` (0 = first of the session). */
export async function readRun(frame, index) {
  const run = frame.locator('article.run').nth(index);
  const tools = run.locator('details.tool');
  const count = await tools.count();
  const items = [];
  for (let i = 0; i < count; i += 1) {
    const t = tools.nth(i);
    // The row's own summary: a task's row holds its child's rows too.
    const own = (css) => t.locator(`:scope > summary ${css}`).first();
    items.push({
      status: ((await t.getAttribute('class')) ?? '').replace('tool', '').trim(),
      icon: (await own('.icon').textContent())?.trim(),
      verb: (await own('.verb').textContent())?.trim(),
      args: (await own('.args').textContent())?.trim(),
      meta: (await own('.meta').textContent())?.trim(),
      // Where a command ran (bash only): `sandboxed (bwrap)`, `not sandboxed`.
      sandbox: (await t.locator(':scope > summary .sandbox-mark').count()) > 0 ? (await own('.sandbox-mark').textContent())?.trim() : undefined,
    });
  }
  const final = run.locator('.final-text');
  return {
    prompt: (await run.locator('.prompt').textContent())?.trim(),
    status: (await run.locator('header .status').textContent())?.trim(),
    tools: items,
    finalText: (await final.count()) > 0 ? (await final.textContent())?.trim() : undefined,
    usage: (await run.locator('.usage').textContent())?.trim(),
  };
}

/** Waits until the run at `index` shows a status class (e.g. `status-completed`). */
export async function waitForRunStatus(frame, index, status, timeoutMs = 60_000) {
  await frame.locator(`article.run:nth-of-type(${index + 1}).status-${status}`).waitFor({ timeout: timeoutMs });
}

/** Types a prompt into the chat's prompt box and sends it with Enter. */
export async function sendFromChat(frame, text) {
  const box = frame.locator('textarea#prompt');
  await box.click();
  await box.fill(text);
  await box.press('Enter');
}

/** Clicks the chat's Stop button (shown while a run is in progress). */
export async function stopFromChat(frame) {
  const stop = frame.locator('button#stop');
  await stop.waitFor({ state: 'visible', timeout: 15_000 });
  await stop.click();
}

/** What the open approval card shows: title, command or diff lines, and its buttons. */
export async function readApprovalCard(frame) {
  const card = frame.locator('.approval-card').first();
  await card.waitFor({ timeout: 30_000 });
  const command = card.locator('pre.command');
  const texts = async (selector) => (await card.locator(selector).allTextContents()).map((t) => t.trim());
  return {
    title: (await card.locator('.approval-title').textContent())?.trim(),
    command: (await command.count()) > 0 ? (await command.textContent())?.trim() : undefined,
    added: await texts('pre.diff .d-add'),
    removed: await texts('pre.diff .d-del'),
    buttons: await texts('.approval-actions button'),
  };
}

/** The approval line of the tool item at `toolIndex` of the run at `runIndex`. */
export async function approvalNote(frame, runIndex, toolIndex = 0) {
  const note = frame.locator('article.run').nth(runIndex).locator('details.tool + .approval-note').nth(toolIndex);
  return (await note.textContent())?.trim();
}

/** Opens a workspace file in the editor by Quick Open, as a user would. */
export async function openFile(page, name) {
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first();
  // The palette without its ">" is Quick Open's file search (Ctrl+P may not reach the workbench
  // from a webview). A file just created shows once the file search has noticed it, and a click
  // while the list is still filtering may land on another row: try again until the file is open.
  await retry(30_000, async () => {
    const input = await openPalette(page);
    await input.fill(name, { timeout: 3_000 });
    await row.waitFor({ state: 'visible', timeout: 3_000 });
    await row.click({ timeout: 3_000 });
    await page.locator('.tab.active', { hasText: name }).waitFor({ timeout: 3_000 });
  });
}

/** The text of the active editor's lines as shown (Monaco renders spaces as no-break spaces). */
export async function editorLines(page) {
  const lines = page.locator('.editor-group-container.active .monaco-editor .view-lines .view-line');
  const tops = await lines.evaluateAll((els) => els.map((e) => [parseFloat(e.style.top), e.textContent ?? '']));
  return tops.sort((a, b) => a[0] - b[0]).map(([, t]) => t.replace(/\u00a0/g, ' '));
}

/**
 * Points at `word` in the active editor until its hover shows `text` (a language server still
 * loading its project answers with less); returns the hover's text.
 */
export async function hoverUntil(page, word, text, timeoutMs = 60_000) {
  const token = page.locator('.editor-group-container.active .monaco-editor .view-line span', { hasText: new RegExp(`^${word}$`) }).first();
  const hover = page.locator('.monaco-hover', { hasText: text }).first();
  await retry(timeoutMs, async () => {
    await page.mouse.move(0, 0);
    await token.hover({ timeout: 3_000 });
    await hover.waitFor({ state: 'visible', timeout: 3_000 });
  });
  const shown = (await hover.textContent()) ?? '';
  await page.mouse.move(0, 0);
  await page.keyboard.press('Escape');
  return shown;
}

/**
 * What each turn of the run at `index` shows, as the user reads it (closed rows show their
 * summary only), one string a turn; the times are `‹time›`, as they vary from run to run.
 */
export async function turnTexts(frame, index) {
  const turns = frame.locator('article.run').nth(index).locator('section.turn');
  const texts = await turns.evaluateAll((els) => els.map((e) => e.innerText));
  return texts.map((t) => t.replace(/\b\d+ min \d+ s\b|\b\d+(\.\d+)? m?s\b/g, '‹time›'));
}
