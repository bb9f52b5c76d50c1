/**
 * The daemon's messages as the extension reads them: typed by the protocol's generated types
 * (src/protocol.generated.ts), so that reading a field the protocol does not define is a type
 * error, yet checked field by field at run time, since a daemon of another version may leave a
 * field out or send a kind this build does not know. No `vscode` import: the webview bundles it.
 */
import type { AgentProgress, ProtocolMethods } from './protocol.generated';

/** The field names `T` declares (not those its index signature, if any, admits). */
type DeclaredKeys<T> = keyof { [K in keyof T as string extends K ? never : number extends K ? never : K]: true };

/**
 * A message as received: the fields its protocol type declares, each possibly missing or of
 * another type until checked. Reading a field the protocol does not declare does not compile.
 */
export type Received<T> = { readonly [K in DeclaredKeys<T>]?: unknown };

/** `v` read as a `T`: its fields when it is an object, else none. */
export function received<T>(v: unknown): Received<T> {
  return v !== null && typeof v === 'object' ? (v as Received<T>) : {};
}

/** The objects of `v` (an array), each read as a `T`; none when `v` is not an array. */
export function receivedList<T>(v: unknown): Received<T>[] {
  return Array.isArray(v) ? v.map((x: unknown) => received<T>(x)) : [];
}

/** The `kind` of every `agent/progress` notification the protocol defines. */
export type ProgressKind = AgentProgress['kind'];

/** The `agent/progress` notification of kind `K`, as received (its `kind` checked, nothing else). */
export type Progress<K extends ProgressKind> = Received<Extract<AgentProgress, { kind: K }>> & { readonly kind: K };

/**
 * One `agent/progress` notification as it arrives: any object. `isKind` narrows it to a kind the
 * protocol defines; kinds this build does not know (a newer daemon's) are ignored.
 */
export type ProgressNotification = Readonly<Record<string, unknown>>;

/** True when `n` is a notification of kind `kind`, read as that kind's protocol type. */
export function isKind<K extends ProgressKind>(n: ProgressNotification, kind: K): n is Progress<K> {
  return n.kind === kind;
}

/** The methods the client sends the daemon. */
export type ClientMethod = {
  [M in keyof ProtocolMethods]: ProtocolMethods[M]['direction'] extends 'client_to_server' ? M : never;
}[keyof ProtocolMethods];

/** The params of a method, as the protocol defines them. */
export type ParamsOf<M extends keyof ProtocolMethods> = ProtocolMethods[M]['params'];

/**
 * `T` with its fields `K` open to any string: an enum of the protocol whose values a newer daemon
 * may add, which the view shows as they come.
 */
export type Open<T, K extends keyof T> = Omit<T, K> & { readonly [F in K]: string };
