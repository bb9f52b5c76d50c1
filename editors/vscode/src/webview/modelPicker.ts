/**
 * The footer's model picker in the chat view: a button naming the chat's model, which opens the
 * list of models, and beside it, for a model that takes one, the reasoning effort. A choice is
 * posted to the extension, which answers with the picker's new state.
 */
import { EFFORTS, effortLabel, type ModelChoice, modelFacts, type ModelInfo, modelLabel, sameModel } from '../models';
import type { ModelsState } from '../runView';
import type { Menu, MenuRow } from './menu';

export interface PickerElements {
  readonly model: HTMLButtonElement;
  readonly effort: HTMLButtonElement;
  readonly errors: HTMLElement;
}

export class ModelPicker {
  private state: ModelsState = { models: [], current: undefined, errors: [], effort: false, available: true };

  constructor(
    private readonly menu: Menu,
    private readonly els: PickerElements,
    private readonly post: (message: unknown) => void,
  ) {
    els.model.addEventListener('click', () => {
      if (menu.kind === 'model') {
        menu.close();
        return;
      }
      this.showModels();
      post({ type: 'models' }); // the list again, with the chat's model
    });
    els.effort.addEventListener('click', () => (menu.kind === 'effort' ? menu.close() : this.showEfforts()));
    // The keyboard stays on the button that opened the list: its keys go to the list.
    document.addEventListener('keydown', (event) => {
      if (menu.kind === 'model' || menu.kind === 'effort') {
        menu.key(event);
      }
    });
    document.addEventListener('mousedown', (event) => {
      const inside = (event.target as HTMLElement).closest('#menu, #model, #effort');
      if (!inside && (menu.kind === 'model' || menu.kind === 'effort')) {
        menu.close();
      }
    });
  }

  /** Shows the extension's state: the chat's model, its effort, the providers that failed. */
  paint(m: ModelsState): void {
    this.state = m;
    const { model, effort, errors } = this.els;
    model.textContent = `${m.current ? modelLabel(m.current) : 'model'} ▾`;
    model.hidden = !m.available;
    effort.hidden = !m.effort || !m.available;
    effort.textContent = `${effortLabel(m.current?.reasoningEffort ?? 'default')} ▾`;
    errors.hidden = m.errors.length === 0;
    errors.title = `Some models could not be listed:\n${m.errors.join('\n')}`;
    if (this.menu.kind === 'model') {
      this.showModels();
    } else if (this.menu.kind === 'effort' && !m.effort) {
      this.menu.close();
    }
  }

  private choose(c: ModelChoice): void {
    this.post({ type: 'setModel', provider: c.provider, model: c.model, reasoningEffort: c.reasoningEffort });
  }

  /** The models under their provider's name, the current one checked, then the errors. */
  private rows(models: readonly ModelInfo[], current: ModelChoice | undefined): MenuRow[] {
    const rows: MenuRow[] = [];
    models.forEach((m, i) => {
      if (i === 0 || models[i - 1].provider !== m.provider) {
        rows.push({ note: m.provider });
      }
      rows.push({ label: m.id, hint: modelFacts(m), checked: current !== undefined && sameModel(m, current) });
    });
    if (models.length === 0) {
      rows.push({ note: this.state.errors.length > 0 ? 'No models could be listed.' : 'Asking the daemon for its models…' });
    }
    return [...rows, ...this.state.errors.map((e) => ({ note: `⚠ ${e}`, warning: true }))];
  }

  private showModels(): void {
    const { models, current } = this.state;
    const at = current !== undefined ? models.findIndex((m) => sameModel(m, current)) : -1;
    this.menu.show('model', this.rows(models, current), (i) => {
      const m = models[i];
      // Another model starts at its own default effort.
      const effort = current !== undefined && sameModel(m, current) ? current.reasoningEffort : 'default';
      this.choose({ provider: m.provider, model: m.id, reasoningEffort: effort });
    }, Math.max(at, 0));
  }

  private showEfforts(): void {
    const current = this.state.current;
    if (current === undefined) {
      return;
    }
    const rows: MenuRow[] = [
      { note: `Reasoning effort of ${modelLabel(current)}` },
      ...EFFORTS.map((e) => ({ label: e, hint: e === 'default' ? "the model's own" : undefined, checked: e === current.reasoningEffort })),
    ];
    this.menu.show('effort', rows, (i) => this.choose({ ...current, reasoningEffort: EFFORTS[i] }), EFFORTS.indexOf(current.reasoningEffort));
  }
}
