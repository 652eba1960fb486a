/**
 * Inline completions (ghost text) from the server's `textDocument/inlineCompletion`.
 *
 * The language client registers VS Code's provider when the server advertises the capability
 * (`lspAgent.completion.modelId` set); the middleware (`middleware.ts`) asks it only while
 * `lspAgent.completion.enabled` is on (the status bar toggle), and anchors each item at the
 * cursor: the server sends no range (Neovim then draws the text inline), and VS Code would
 * otherwise replace the word at the cursor with it.
 *
 * No `vscode` import here: this module loads (and is tested) without VS Code.
 */

/** The part of an inline completion item this module touches. */
export interface RangedItem {
  range?: unknown;
}

/** `result` (a list or `{items}`) with each item that has no range given `atCursor`. */
export function anchoredAtCursor<T extends RangedItem, L extends T[] | { items: T[] }>(
  result: L | null | undefined,
  atCursor: T['range'],
): L | null | undefined {
  if (!result) return result;
  const items = Array.isArray(result) ? result : result.items;
  for (const item of items) {
    if (item.range === undefined) item.range = atCursor;
  }
  return result;
}

export interface CompletionView {
  readonly text: string;
  readonly tooltip: string;
  readonly visible: boolean;
}

/**
 * The status bar toggle: shown while the server offers completions (or the user has set a
 * completion model, which the server takes without a restart), `on` or `off`.
 */
export function completionView(options: { enabled: boolean; offered: boolean; modelId: string }): CompletionView {
  const model = options.modelId ? ` from ${options.modelId}` : '';
  if (options.enabled) {
    return {
      text: '$(sparkle) Complete',
      tooltip: `LSP Agent inline completions are on${model}: ghost text while you type, Tab accepts. Click to turn them off.`,
      visible: options.offered || options.modelId !== '',
    };
  }
  return {
    text: '$(circle-slash) Complete',
    tooltip: `LSP Agent inline completions are off${model}. Click to turn them on.`,
    visible: options.offered || options.modelId !== '',
  };
}
