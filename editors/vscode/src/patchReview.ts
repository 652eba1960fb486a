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

export class DiffPatchReview implements PatchReview, vscode.Disposable {
  private readonly contents = new Map<string, string>();
  private readonly disposables: vscode.Disposable[] = [];
  private answer: ((choice: PatchChoice) => void) | undefined;
  /** One patch at a time: a second waits until the first is decided. */
  private turn: Promise<void> = Promise.resolve();
  private endTurn: (() => void) | undefined;
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
    return this.answer !== undefined;
  }

  dispose(): void {
    this.decide('reject');
    for (const d of this.disposables) d.dispose();
  }

  async choose(params: ApplyWorkspaceEditParams, again?: string): Promise<PatchChoice> {
    if (again === undefined) await this.takeTurn();
    const names = await this.showDiffs(params);
    const choice = new Promise<PatchChoice>((resolve) => {
      this.answer = resolve;
    });
    await vscode.commands.executeCommand('setContext', PENDING_CONTEXT, true);
    const what = names.length === 1 ? names[0] : `${names.length} files (${names.join(', ')})`;
    const question = `LSP Agent: apply the agent's patch to ${what}?`;
    const asked = again
      ? vscode.window.showWarningMessage(`${again} ${question}`, ACCEPT, REVIEW, REJECT)
      : vscode.window.showInformationMessage(question, ACCEPT, REVIEW, REJECT);
    void asked.then((picked) => {
      if (picked !== undefined) this.decide(CHOICES[picked]);
    });
    return choice;
  }

  async close(): Promise<void> {
    this.answer = undefined;
    await vscode.commands.executeCommand('setContext', PENDING_CONTEXT, false);
    const tabs = vscode.window.tabGroups.all
      .flatMap((group) => group.tabs)
      .filter((tab) => tab.input instanceof vscode.TabInputTextDiff && tab.input.modified.scheme === PATCH_SCHEME);
    if (tabs.length > 0) await vscode.window.tabGroups.close(tabs, true);
    this.contents.clear();
    const end = this.endTurn;
    this.endTurn = undefined;
    end?.();
  }

  private decide(choice: PatchChoice): void {
    const answer = this.answer;
    this.answer = undefined;
    if (answer) answer(choice);
    else if (choice !== 'reject') void vscode.window.showInformationMessage('LSP Agent: no patch is waiting for approval.');
  }

  private async takeTurn(): Promise<void> {
    const previous = this.turn;
    this.turn = new Promise((resolve) => {
      this.endTurn = resolve;
    });
    await previous;
    this.serial += 1;
  }

  private virtual(name: string, side: string, text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: PATCH_SCHEME, path: `/${name}`, query: `${this.serial}-${side}` });
    this.contents.set(uri.toString(), text);
    return uri;
  }

  /** Opens one diff per file (the first file in front); returns the files' names. */
  private async showDiffs(params: ApplyWorkspaceEditParams): Promise<string[]> {
    const diffs: { left: vscode.Uri; right: vscode.Uri; name: string }[] = [];
    for (const file of fileChanges(params.edit)) {
      const name = vscode.workspace.asRelativePath(vscode.Uri.parse(file.after ?? file.before ?? ''));
      let before = '';
      let left: vscode.Uri;
      if (file.before !== undefined && !file.created) {
        left = vscode.Uri.parse(file.before);
        before = (await vscode.workspace.openTextDocument(left)).getText();
      } else {
        left = this.virtual(name, 'none', '');
      }
      const after = file.after === undefined ? '' : applyTextEdits(before, file.edits);
      diffs.push({ left, right: this.virtual(name, 'patched', after), name });
    }
    for (const diff of [...diffs].reverse()) {
      await vscode.commands.executeCommand('vscode.diff', diff.left, diff.right, `${diff.name} ↔ agent's patch`, {
        preview: false,
      });
    }
    return diffs.map((d) => d.name);
  }
}
