/**
 * Choosing the model, the pure part: the answer of `agent/models` as what the chat's picker and
 * the quick pick show, the choice the user made, and how it travels (`agent/setModel`, or the
 * params of a session's first `agent/run`). No `vscode` import: the webview bundles it too.
 */
import type * as P from './protocol.generated';
import { type Received, received, receivedList } from './wire';

/** The reasoning efforts the daemon takes; `default` leaves it to the model (sent as null). */
export const EFFORTS = ['default', 'low', 'medium', 'high'] as const;
export type Effort = (typeof EFFORTS)[number];

/** One model of `agent/models` (`reasoning`: it accepts a reasoning effort). */
export type ModelInfo = Readonly<Omit<P.ModelListed, 'provider'> & { provider: string }>;

/** The model a session uses or a choice names (`default`: no effort of its own). */
// `provider` stays a string here: a provider a newer daemon lists is shown and sent back as is.
export type ModelChoice = Readonly<Omit<P.ModelChoice, 'reasoningEffort' | 'provider'> & { provider: string; reasoningEffort: Effort }>;

/** The `agent/models` answer, checked. */
export interface ModelList {
  readonly models: readonly ModelInfo[];
  readonly current: ModelChoice | undefined;
  /** One line per provider that could not be asked, e.g. `anthropic: authentication failed`. */
  readonly errors: readonly string[];
  /** The providers the daemon serves: those listed, and those whose list failed. */
  readonly providers: readonly string[];
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** `low`, `medium` or `high` as an effort; anything else (null, absent) is the default. */
export function effortOf(v: unknown): Effort {
  return v === 'low' || v === 'medium' || v === 'high' ? v : 'default';
}

function modelOf(m: Received<P.ModelListed>): ModelInfo | undefined {
  const provider = str(m.provider);
  const id = str(m.id);
  if (provider === undefined || id === undefined) {
    return undefined;
  }
  const name = str(m.name);
  return {
    provider,
    id,
    ...(name !== undefined && name !== id ? { name } : {}),
    ...(typeof m.contextWindow === 'number' ? { contextWindow: m.contextWindow } : {}),
    ...(m.images === true ? { images: true } : {}),
    ...(m.reasoning === true ? { reasoning: true } : {}),
  };
}

function choiceOf(v: unknown): ModelChoice | undefined {
  const c = received<P.ModelChoice>(v);
  const provider = str(c.provider);
  const model = str(c.model);
  return provider !== undefined && model !== undefined ? { provider, model, reasoningEffort: effortOf(c.reasoningEffort) } : undefined;
}

/** The answer of `agent/models`; the current model is listed even when the service's list lacks it. */
export function modelListFrom(result: unknown): ModelList {
  const r = received<P.ModelsResult>(result);
  const models = receivedList<P.ModelListed>(r.models).map(modelOf).filter((m): m is ModelInfo => m !== undefined);
  const current = choiceOf(r.current);
  if (current !== undefined && !models.some((m) => sameModel(m, current))) {
    models.unshift({ provider: current.provider, id: current.model });
  }
  const failed = receivedList<P.ModelsError>(r.errors);
  const errors = failed.map((e) => [str(e.provider), str(e.message) ?? str(e.kind)].filter((x) => x !== undefined).join(': '));
  const providers = [...models.map((m) => m.provider), ...failed.map((e) => str(e.provider) ?? '')].filter((p) => p !== '');
  return { models, current, errors: errors.filter((e) => e !== ''), providers: [...new Set(providers)] };
}

/**
 * True when a choice can still be made: the daemon serves its provider (a model the service does
 * not list may still be one it takes). A daemon restarted without the provider's key does not.
 */
export function stillServed(list: ModelList, c: ModelChoice): boolean {
  return list.providers.includes(c.provider);
}

/** True when the model is the one the choice names. */
export function sameModel(m: ModelInfo, c: { provider: string; model: string }): boolean {
  return m.provider === c.provider && m.id === c.model;
}

/** How a model is named in the picker: `provider/id`. */
export function modelLabel(c: { provider: string; model: string }): string {
  return `${c.provider}/${c.model}`;
}

/** The effort as the picker shows it next to the model. */
export function effortLabel(e: Effort): string {
  return e === 'default' ? 'effort: default' : `effort: ${e}`;
}

/** True when the chosen model takes a reasoning effort (per the list's `reasoning`). */
export function takesEffort(models: readonly ModelInfo[], c: { provider: string; model: string } | undefined): boolean {
  return c !== undefined && models.some((m) => sameModel(m, c) && m.reasoning === true);
}

/** A provider the daemon named (it lists those it serves), as the params that take one name it. */
function providerOf(c: ModelChoice): P.SetModelParams['provider'] {
  return c.provider as P.SetModelParams['provider'];
}

/** The params of `agent/setModel` for a session. The default effort is null: the settings'. */
export function setModelParams(sessionId: string, c: ModelChoice): P.SetModelParams {
  const reasoningEffort = c.reasoningEffort === 'default' ? null : c.reasoningEffort;
  return { sessionId, provider: providerOf(c), model: c.model, reasoningEffort };
}

/** The `agent/run` params that run a new session's first prompt on the chosen model. */
export function runParamsOf(c: ModelChoice): P.RunParams {
  return { provider: providerOf(c), model: c.model, ...(c.reasoningEffort !== 'default' ? { reasoningEffort: c.reasoningEffort } : {}) };
}

/** The facts of a model for a quick-pick row or a tooltip: context window, images, reasoning. */
export function modelFacts(m: ModelInfo): string {
  const facts = [
    m.name ?? '',
    m.contextWindow !== undefined ? `${Math.round(m.contextWindow / 1000)}k context` : '',
    m.images ? 'images' : '',
    m.reasoning ? 'reasoning' : '',
  ];
  return facts.filter((f) => f !== '').join(' · ');
}
