/**
 * Slash commands in the prompt box: `/` at its start opens the list of commands, filtered as the
 * name is typed; accepting one puts `/name ` in the box, ready for its arguments.
 */
import { acceptCommand, filterCommands, keptHighlight, type SlashCommand, slashQuery } from '../slash';
import { followPrompt, type Menu, type MenuRow } from './menu';

export class SlashCompletion {
  private commands: readonly SlashCommand[] = [];
  private shown: readonly SlashCommand[] = []; // what the open list shows, in its order
  /** True while the box names a command (the list is open, or waits for commands to show). */
  private naming = false;

  constructor(
    private readonly menu: Menu,
    private readonly prompt: HTMLTextAreaElement,
    private readonly post: (message: unknown) => void,
  ) {
    followPrompt(prompt, menu, 'slash', () => this.update(), () => {
      this.naming = false;
    });
  }

  /** The commands the daemon listed; a box naming one shows them at once. */
  setCommands(commands: readonly SlashCommand[]): void {
    this.commands = commands;
    if (this.naming) {
      this.update();
    }
  }

  /** Escape closed the list: commands arriving now do not open it again (typing does). */
  dismiss(): void {
    this.naming = false;
  }

  /** True when the box holds exactly `/name` of a known command: nothing left to complete. */
  complete(): boolean {
    const text = this.prompt.value.trim();
    return this.commands.some((c) => `/${c.name}` === text);
  }

  /** Opens, filters or closes the list after the box or its caret changed. */
  update(): void {
    const { prompt, menu } = this;
    const query = slashQuery(prompt.value, prompt.selectionStart);
    if (query === undefined || prompt.selectionStart !== prompt.selectionEnd) {
      this.naming = false;
      if (menu.kind === 'slash') {
        menu.close();
      }
      return;
    }
    if (!this.naming) {
      this.naming = true;
      this.post({ type: 'commands' }); // custom commands may have changed since
    }
    const shown = filterCommands(this.commands, query);
    const active = menu.kind === 'slash' ? menu.active : undefined;
    const highlighted = active === undefined ? undefined : this.shown[active]?.name;
    this.shown = shown;
    menu.show('slash', shown.map(row), (i) => this.accept(shown[i].name), keptHighlight(highlighted, shown));
  }

  private accept(name: string): void {
    this.prompt.value = acceptCommand(this.prompt.value, name);
    this.prompt.setSelectionRange(this.prompt.value.length, this.prompt.value.length);
    this.prompt.focus();
  }
}

function row(c: SlashCommand): MenuRow {
  return { label: `/${c.name}`, hint: c.argumentHint, detail: c.description, tag: c.source === 'builtin' ? undefined : c.source };
}
