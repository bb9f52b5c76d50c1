/**
 * A hover's contents as one Markdown text, for the daemon's `hover` tool. No `vscode` import: the
 * parts are VS Code's MarkdownString (its `value`), a plain string, or a `{language, value}`
 * code block (the older MarkedString).
 */

/** One part of a hover's contents. */
export type HoverPart = string | { readonly value: string; readonly language?: string };

/** The parts joined by blank lines; code blocks fenced with their language; empty parts left out. */
export function hoverText(parts: readonly HoverPart[]): string {
  return parts
    .map((p) => {
      if (typeof p === 'string') {
        return p;
      }
      return typeof p.language === 'string' ? `\`\`\`${p.language}\n${p.value}\n\`\`\`` : p.value;
    })
    .map((t) => t.trim())
    .filter((t) => t !== '')
    .join('\n\n');
}
