/**
 * `@` mentions in the prompt box: `@` (after a space or at the start) opens the list of
 * workspace paths that complete what follows it, asked of the extension as the name is typed;
 * accepting a folder lists what is in it, accepting a file puts its path in the box. The files
 * the sent prompt names go with it as context (the extension attaches them).
 */
import { acceptMention, mentionQuery } from '../mentions';
import { followPrompt, type Menu } from './menu';

export class MentionCompletion {
  /** The `@path` asked about last: only its answer is shown. */
  private asked: string | undefined;

  constructor(
    private readonly menu: Menu,
    private readonly prompt: HTMLTextAreaElement,
    private readonly post: (message: unknown) => void,
  ) {
    followPrompt(prompt, menu, 'mention', () => this.update(), () => {
      this.asked = undefined;
    });
  }

  /** Asks for the paths completing the `@path` before the caret, or closes the list. */
  update(): void {
    const { prompt } = this;
    const query = prompt.selectionStart === prompt.selectionEnd ? mentionQuery(prompt.value, prompt.selectionStart) : undefined;
    if (query === undefined) {
      this.asked = undefined;
      if (this.menu.kind === 'mention') {
        this.menu.close();
      }
      return;
    }
    if (query !== this.asked) {
      this.asked = query;
      this.post({ type: 'mentions', query });
    }
  }

  /** The extension's answer: the list, if it still answers what the box asks. */
  show(query: string, paths: readonly string[]): void {
    if (query !== this.asked || document.activeElement !== this.prompt) {
      return;
    }
    const rows = paths.map((path) => ({ label: path, tag: path.endsWith('/') ? 'folder' : undefined }));
    if (rows.length === 0) {
      if (this.menu.kind === 'mention') {
        this.menu.close();
      }
      return;
    }
    this.menu.show('mention', rows, (i) => this.accept(paths[i]));
  }

  private accept(path: string): void {
    const { prompt } = this;
    const next = acceptMention(prompt.value, prompt.selectionStart, path);
    prompt.value = next.text;
    prompt.setSelectionRange(next.caret, next.caret);
    prompt.focus();
    this.update(); // a folder: what is in it
  }
}
