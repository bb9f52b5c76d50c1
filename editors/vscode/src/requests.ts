/**
 * The protocol through the language client: requests to the daemon with the params its protocol
 * defines (src/protocol.generated.ts), so that a renamed or mistyped param does not compile (the
 * answer is read with `received`), and what the daemon announced when it came up.
 */
import type { CancellationToken, LanguageClient } from 'vscode-languageclient/node';
import type * as P from './protocol.generated';
import { type ClientMethod, type ParamsOf, type Received, received } from './wire';

/** Sends `method` with `params`; resolves with the daemon's answer, unread. */
export function request<M extends ClientMethod>(
  client: LanguageClient,
  method: M,
  params: ParamsOf<M>,
  token?: CancellationToken,
): Promise<unknown> {
  return token === undefined ? client.sendRequest(method, params) : client.sendRequest(method, params, token);
}

/** The names a started daemon announced as `true` in `capabilities.experimental.harness9`. */
export function flagsOf(client: LanguageClient): string[] {
  const ours: Readonly<Record<string, unknown>> = capabilitiesOf(client);
  return Object.keys(ours).filter((k) => ours[k] === true);
}

/** What a started daemon announced in `capabilities.experimental.harness9`. */
function capabilitiesOf(client: LanguageClient): Received<P.ServerCapabilities> {
  return received<P.ServerCapabilities>((client.initializeResult?.capabilities.experimental as { harness9?: unknown } | undefined)?.harness9);
}

/** The `agent/*` methods a started daemon announced (`capabilities.experimental.harness9.methods`). */
export function methodsOf(client: LanguageClient): string[] {
  const methods = capabilitiesOf(client).methods;
  return Array.isArray(methods) ? methods.filter((m): m is string => typeof m === 'string') : [];
}
