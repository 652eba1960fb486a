/**
 * The approval path through the real vscode-languageclient: a `workspace/applyEdit` whose hunks
 * carry change annotations with `needsConfirmation: true` reaches `vscode.workspace.applyEdit`
 * with that flag on every hunk (VS Code then shows its refactor preview), through our middleware,
 * and the status bar shows "waiting for approval" while the preview is open.
 */
import assert from 'node:assert/strict';
import type { ApplyWorkspaceEditParams } from 'vscode-languageclient';
import { createMiddleware, type MiddlewareHooks } from '../src/middleware';
import { StatusModel } from '../src/statusModel';
import { type FakeVscode, sharedFakeVscode, type WorkspaceEdit } from './helpers/fakeVscode';
import { quietHooks } from './helpers/hooks';
import { waitFor } from './helpers/waitFor';

const URI = 'file:///work/repo/src/app.py';

/** A patch of two hunks, one annotation each, as the server sends it. */
function annotatedEdit(): ApplyWorkspaceEditParams {
  return {
    label: 'lsp-agent: patch p1',
    edit: {
      documentChanges: [
        {
          textDocument: { uri: URI, version: 3 },
          edits: [
            {
              range: { start: { line: 1, character: 0 }, end: { line: 1, character: 5 } },
              newText: 'größe = 1',
              annotationId: 'p1-h1',
            },
            {
              range: { start: { line: 9, character: 0 }, end: { line: 10, character: 0 } },
              newText: '',
              annotationId: 'p1-h2',
            },
          ],
        },
      ],
      changeAnnotations: {
        'p1-h1': { label: 'src/app.py @@ -2,1 +2,1 @@', needsConfirmation: true, description: 'patch p1' },
        'p1-h2': { label: 'src/app.py @@ -10,1 +10,0 @@', needsConfirmation: true, description: 'patch p1' },
      },
    },
  };
}

describe('workspace/applyEdit through the language client', () => {
  let fake: FakeVscode;
  let LanguageClient: typeof import('vscode-languageclient/node').LanguageClient;

  before(() => {
    fake = sharedFakeVscode();
    // Loaded after the fake `vscode` is in place.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    LanguageClient = (require('vscode-languageclient/node') as typeof import('vscode-languageclient/node')).LanguageClient;
  });

  function clientWith(hooks: Partial<MiddlewareHooks>): { handle(p: ApplyWorkspaceEditParams): Promise<unknown> } {
    const middleware = createMiddleware({
      ...quietHooks(),
      ...hooks,
    });
    const client = new LanguageClient('lspAgentTest', 'test', { command: 'true' }, { middleware });
    const handler = (client as unknown as { handleApplyWorkspaceEdit(p: ApplyWorkspaceEditParams): Promise<unknown> })
      .handleApplyWorkspaceEdit;
    assert.equal(typeof handler, 'function', 'the language client no longer has handleApplyWorkspaceEdit: re-check the approval path');
    return { handle: (p) => handler.call(client, p) };
  }

  it('keeps needsConfirmation on every hunk and answers applied', async () => {
    fake.applied.length = 0;
    fake.applyResult = true;
    const { handle } = clientWith({});
    const result = await handle(annotatedEdit());
    assert.deepEqual(result, { applied: true });
    assert.equal(fake.applied.length, 1);
    const edit = fake.applied[0].edit as WorkspaceEdit;
    assert.equal(edit.entries.length, 1);
    assert.equal(edit.entries[0].uri, URI);
    const hunks = edit.entries[0].edits;
    assert.equal(hunks.length, 2);
    for (const [, metadata] of hunks) {
      assert.ok(metadata, 'a hunk lost its annotation');
      assert.equal(metadata.needsConfirmation, true);
      assert.equal(metadata.description, 'patch p1');
    }
    assert.deepEqual(
      hunks.map(([, m]) => m?.label),
      ['src/app.py @@ -2,1 +2,1 @@', 'src/app.py @@ -10,1 +10,0 @@'],
    );
    assert.equal(hunks[0][0].newText, 'größe = 1');
    assert.deepEqual({ ...hunks[0][0].range.start }, { line: 1, character: 0 });
  });

  it('reports a rejected preview as not applied', async () => {
    fake.applied.length = 0;
    fake.applyResult = false;
    const { handle } = clientWith({});
    assert.deepEqual(await handle(annotatedEdit()), { applied: false });
  });

  it('shows "waiting for approval" while the preview is open, and idle after', async () => {
    const model = new StatusModel();
    model.setServer('running');
    const seen: string[] = [];
    let release: (value: boolean) => void = () => undefined;
    fake.applied.length = 0;
    const original = (fake.module.workspace as { applyEdit: unknown }).applyEdit;
    (fake.module.workspace as { applyEdit: unknown }).applyEdit = (edit: WorkspaceEdit) => {
      fake.applied.push({ edit, metadata: undefined });
      seen.push(model.view().kind);
      return new Promise<boolean>((resolve) => {
        release = resolve;
      });
    };
    try {
      const { handle } = clientWith({
        approvalStarted: () => model.approvalStarted(),
        approvalEnded: () => model.approvalEnded(),
      });
      const pending = handle(annotatedEdit());
      await waitFor('the edit to reach VS Code', () => seen.length > 0);
      assert.deepEqual(seen, ['approval']);
      assert.equal(model.view().kind, 'approval');
      release(true);
      assert.deepEqual(await pending, { applied: true });
      assert.equal(model.view().kind, 'idle');
    } finally {
      (fake.module.workspace as { applyEdit: unknown }).applyEdit = original;
    }
  });
});
