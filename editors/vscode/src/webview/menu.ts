/**
 * The chat view's pop-up list above the prompt box: the slash commands as the user types them,
 * the models of the footer's picker, the reasoning efforts. One list at a time; Up and Down move
 * the highlight, Enter or Tab accepts it, Escape closes it, a click accepts a row.
 */
import { esc } from '../render';

export interface MenuItem {
  readonly label: string;
  /** Muted text after the label (an argument hint, a model's facts). */
  readonly hint?: string;
  /** A second line (a command's description). */
  readonly detail?: string;
  /** A small tag on the right (`workspace`, `user`). */
  readonly tag?: string;
  readonly checked?: boolean;
}

/** A row that is no choice: a provider's name over its models, an error. */
export interface MenuNote {
  readonly note: string;
  readonly warning?: boolean;
}

export type MenuRow = MenuItem | MenuNote;

const isItem = (r: MenuRow): r is MenuItem => 'label' in r;

interface Open {
  readonly kind: string;
  readonly rows: readonly MenuRow[];
  readonly accept: (index: number) => void;
  active: number;
}

export class Menu {
  private open: Open | undefined;

  constructor(private readonly el: HTMLElement) {
    // A click on a row accepts it; mousedown keeps the focus where it is (the prompt box).
    el.addEventListener('mousedown', (event) => event.preventDefault());
    // The pointer moves the highlight: one row is highlighted, the one Enter would take.
    el.addEventListener('mousemove', (event) => {
      const index = Number((event.target as HTMLElement).closest<HTMLElement>('[data-item]')?.dataset.item);
      if (this.open && Number.isInteger(index) && index !== this.open.active) {
        this.open.active = index;
        this.paint();
      }
    });
    el.addEventListener('click', (event) => {
      const row = (event.target as HTMLElement).closest<HTMLElement>('[data-item]');
      if (row) {
        this.accept(Number(row.dataset.item));
      }
    });
  }

  /** The kind of the list shown (`slash`, `model`, `effort`), if one is. */
  get kind(): string | undefined {
    return this.open?.kind;
  }

  /** The index of the highlighted item (among the items), while a list is shown. */
  get active(): number | undefined {
    return this.open?.active;
  }

  /**
   * Shows `rows`, highlighting the item at `active` (an index among the items, not the notes);
   * `accept` gets the index of the item chosen. No items and no notes: the list closes.
   */
  show(kind: string, rows: readonly MenuRow[], accept: (index: number) => void, active = 0): void {
    if (rows.length === 0) {
      this.close();
      return;
    }
    const items = rows.filter(isItem).length;
    this.open = { kind, rows, accept, active: Math.max(0, Math.min(active, items - 1)) };
    this.el.dataset.kind = kind;
    this.paint();
    this.el.hidden = false;
  }

  close(): void {
    this.open = undefined;
    this.el.hidden = true;
    this.el.innerHTML = '';
  }

  /** Handles a key for the list shown; true when it did (the caller then ignores it). */
  key(event: KeyboardEvent): boolean {
    if (!this.open) {
      return false;
    }
    const count = this.open.rows.filter(isItem).length;
    switch (event.key) {
      case 'ArrowDown':
      case 'ArrowUp':
        if (count > 0) {
          this.open.active = (this.open.active + (event.key === 'ArrowDown' ? 1 : count - 1)) % count;
          this.paint();
        }
        break;
      case 'Enter':
      case 'Tab':
        if (event.shiftKey || count === 0) {
          return false;
        }
        this.accept(this.open.active);
        break;
      case 'Escape':
        this.close();
        break;
      default:
        return false;
    }
    event.preventDefault();
    event.stopPropagation();
    return true;
  }

  private accept(index: number): void {
    const open = this.open;
    this.close();
    open?.accept(index);
  }

  private paint(): void {
    const open = this.open;
    if (!open) {
      return;
    }
    let i = -1;
    this.el.innerHTML = open.rows
      .map((r) => {
        if (!isItem(r)) {
          return `<div class="menu-note${r.warning ? ' warning' : ''}">${esc(r.note)}</div>`;
        }
        i += 1;
        return renderItem(r, i, i === open.active);
      })
      .join('');
    this.el.querySelector('.menu-item.active')?.scrollIntoView({ block: 'nearest' });
  }
}

function renderItem(r: MenuItem, index: number, active: boolean): string {
  // Lists of choices (models, efforts) mark the current one; commands have no mark column.
  const check = r.checked !== undefined ? `<span class="menu-check">${r.checked ? '✓' : ''}</span>` : '';
  const hint = r.hint ? ` <span class="menu-hint">${esc(r.hint)}</span>` : '';
  const tag = r.tag ? `<span class="menu-tag">${esc(r.tag)}</span>` : '';
  const detail = r.detail ? `<div class="menu-detail">${esc(r.detail)}</div>` : '';
  const cls = `menu-item${active ? ' active' : ''}${r.checked !== undefined ? ' checkable' : ''}`;
  return `<div class="${cls}" role="option" aria-selected="${active}" data-item="${index}">`
    + `<div class="menu-line">${check}<span class="menu-label">${esc(r.label)}</span>${hint}${tag}</div>${detail}</div>`;
}

/**
 * Follows the prompt box for a completion list: `update` as its text changes or its caret moves;
 * when it loses the focus, `reset` and the list of `kind` closes.
 */
export function followPrompt(prompt: HTMLTextAreaElement, menu: Menu, kind: string, update: () => void, reset: () => void): void {
  prompt.addEventListener('input', update);
  prompt.addEventListener('click', update);
  prompt.addEventListener('blur', () => {
    reset();
    if (menu.kind === kind) {
      menu.close();
    }
  });
}
