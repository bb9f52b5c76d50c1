/**
 * What the agent is doing, as the status bar says it: idle, running (turn N and what the daemon
 * reports), or waiting for the user. Pure: unit-tested.
 */

export interface AgentActivity {
  /** The turn of the run in progress; undefined when idle. */
  readonly turn?: number;
  readonly running: boolean;
  /** The daemon's latest `$/progress` message, e.g. `turn 2 · bash: npm test`. */
  readonly message?: string;
  /** The questions waiting for the user, oldest first. */
  readonly questions: readonly WaitingQuestion[];
}

/** A question's title, and the child agent that asks it (none: the agent itself). */
export interface WaitingQuestion {
  readonly title: string;
  readonly agent?: string;
}

/** The item's text and tooltip for an activity (pure, for tests). */
export function statusText(a: AgentActivity): { text: string; tooltip: string; asking: boolean } {
  if (a.questions.length > 0) {
    const more = a.questions.length > 1 ? ` (+${a.questions.length - 1})` : '';
    const { title, agent } = a.questions[0];
    const who = agent ? `harness9 (${agent} agent)` : 'harness9';
    return {
      text: `$(question) ${who} asks: ${title}${more}`,
      tooltip: `${who} waits for your approval to run ${title}. Click to answer in the chat.`,
      asking: true,
    };
  }
  if (a.running) {
    // The daemon's message names its turn; one of an earlier turn is stale.
    const current = a.turn !== undefined && a.message?.startsWith(`turn ${a.turn} `) ? a.message : undefined;
    const what = current ?? (a.turn !== undefined ? `turn ${a.turn}` : 'starting');
    return { text: `$(sync~spin) harness9: ${what}`, tooltip: 'harness9 is running. Click to show the chat.', asking: false };
  }
  return { text: '$(comment-discussion) harness9', tooltip: 'harness9: idle. Click to open the chat.', asking: false };
}
