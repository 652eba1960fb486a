/**
 * The agent's patch in a diff view, approved in one action. VS Code shows a workspace edit whose
 * annotations need confirmation in its Refactor Preview with every hunk unticked (LSP cannot tick
 * them), so "Apply" there writes nothing unless the user ticks first. Instead, the extension opens
 * each file's diff (current text ↔ the text after the patch) and asks:
 *
 *  - **Accept**: the whole patch is applied at once;
 *  - **Review hunks…**: VS Code's Refactor Preview, to pick hunks;
 *  - **Reject**: the agent is told the patch was rejected.
 *
 * The same three are buttons in the diff editor's title bar, palette commands and entries of the
 * status bar menu; the first answer wins. Closing the notification or the diff decides nothing.
 */
import * as vscode from 'vscode';
import type { ApplyWorkspaceEditParams } from 'vscode-languageclient';
import { applyTextEdits, fileChanges } from './annotatedEdit';
import type { PatchChoice, PatchReview } from './middleware';

export const PATCH_SCHEME = 'lsp-agent-patch';
export const PENDING_CONTEXT = 'lspAgent.patchPending';
export const ACCEPT = 'Accept';
export const REVIEW = 'Review hunks…';
export const REJECT = 'Reject';
const CHOICES: Record<string, PatchChoice> = { [ACCEPT]: 'accept', [REVIEW]: 'review', [REJECT]: 'reject' };

/** One patch under review: its diff documents are named by `serial`. */
interface Turn {
  readonly serial: number;
  answer?: (choice: PatchChoice) => void;
}

export class DiffPatchReview implements PatchReview, vscode.Disposable {
  private readonly contents = new Map<string, string>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly turns = new Map<ApplyWorkspaceEditParams, Turn>();
  /** The patch the commands and the context key are about (the newest). */
  private current: Turn | undefined;
  private serial = 0;

  constructor() {
    this.disposables.push(
      vscode.workspace.registerTextDocumentContentProvider(PATCH_SCHEME, {
        provideTextDocumentContent: (uri) => this.contents.get(uri.toString()) ?? '',
      }),
      vscode.commands.registerCommand('lspAgent.acceptPatch', () => this.decide('accept')),
      vscode.commands.registerCommand('lspAgent.reviewPatch', () => this.decide('review')),
      vscode.commands.registerCommand('lspAgent.rejectPatch', () => this.decide('reject')),
    );
  }

  get pending(): boolean {
    return this.current?.answer !== undefined;
  }

  dispose(): void {
    for (const turn of this.turns.values()) turn.answer?.('reject');
    for (const d of this.disposables) d.dispose();
  }

  async choose(params: ApplyWorkspaceEditParams, again?: string): Promise<PatchChoice> {
    let turn = this.turns.get(params);
    if (!turn) {
      // One job per workspace: a new patch while an older one waits means the server stopped
      // waiting for the older one (its job ended or timed out). The new one replaces it.
      this.current?.answer?.('reject');
      turn = { serial: ++this.serial };
      this.turns.set(params, turn);
    }
    this.current = turn;
    let names: string[];
    try {
      names = await this.showDiffs(params, turn.serial);
    } catch (error) {
      // The question still comes; Review hunks still shows VS Code's own preview.
      names = fileChanges(params.edit).map((f) => vscode.workspace.asRelativePath(vscode.Uri.parse(f.after ?? f.before ?? '')));
      void vscode.window.showWarningMessage(`LSP Agent: could not show the patch as a diff: ${String(error)}`);
    }
    const choice = new Promise<PatchChoice>((resolve) => {
      turn.answer = resolve;
    });
    await vscode.commands.executeCommand('setContext', PENDING_CONTEXT, true);
    const what = names.length === 1 ? names[0] : `${names.length} files (${names.join(', ')})`;
    const question = `LSP Agent: apply the agent's patch to ${what}?`;
    const asked = again
      ? vscode.window.showWarningMessage(`${again} ${question}`, ACCEPT, REVIEW, REJECT)
      : vscode.window.showInformationMessage(question, ACCEPT, REVIEW, REJECT);
    void asked.then((picked) => {
      if (picked !== undefined && turn.answer) this.answer(turn, CHOICES[picked]);
    });
    return choice;
  }

  async close(params: ApplyWorkspaceEditParams): Promise<void> {
    const turn = this.turns.get(params);
    if (!turn) return;
    this.turns.delete(params);
    turn.answer = undefined;
    if (this.current === turn) {
      this.current = undefined;
      await vscode.commands.executeCommand('setContext', PENDING_CONTEXT, false);
    }
    const mine = (uri: vscode.Uri): boolean => uri.scheme === PATCH_SCHEME && uri.query.startsWith(`${turn.serial}-`);
    const tabs = vscode.window.tabGroups.all
      .flatMap((group) => group.tabs)
      .filter((tab) => tab.input instanceof vscode.TabInputTextDiff && mine(tab.input.modified));
    if (tabs.length > 0) await vscode.window.tabGroups.close(tabs, true);
    for (const key of [...this.contents.keys()]) {
      if (mine(vscode.Uri.parse(key))) this.contents.delete(key);
    }
  }

  private answer(turn: Turn, choice: PatchChoice): void {
    const resolve = turn.answer;
    turn.answer = undefined;
    resolve?.(choice);
  }

  /** A command: answers the newest patch. */
  private decide(choice: PatchChoice): void {
    if (this.current?.answer) this.answer(this.current, choice);
    else void vscode.window.showInformationMessage('LSP Agent: no patch is waiting for approval.');
  }

  private virtual(serial: number, name: string, side: string, text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: PATCH_SCHEME, path: `/${name}`, query: `${serial}-${side}` });
    this.contents.set(uri.toString(), text);
    return uri;
  }

  /** Opens one diff per file (the first file in front); returns the files' names. */
  private async showDiffs(params: ApplyWorkspaceEditParams, serial: number): Promise<string[]> {
    const diffs: { left: vscode.Uri; right: vscode.Uri; name: string }[] = [];
    for (const file of fileChanges(params.edit)) {
      const name = vscode.workspace.asRelativePath(vscode.Uri.parse(file.after ?? file.before ?? ''));
      let before = '';
      let left: vscode.Uri;
      if (file.before !== undefined && !file.created) {
        left = vscode.Uri.parse(file.before);
        before = (await vscode.workspace.openTextDocument(left)).getText();
      } else {
        left = this.virtual(serial, name, 'none', '');
      }
      const after = file.after === undefined ? '' : applyTextEdits(before, file.edits);
      diffs.push({ left, right: this.virtual(serial, name, 'patched', after), name });
    }
    for (const diff of [...diffs].reverse()) {
      await vscode.commands.executeCommand('vscode.diff', diff.left, diff.right, `${diff.name} ↔ agent's patch`, {
        preview: false,
      });
    }
    return diffs.map((d) => d.name);
  }
}
