/**
 * The diff view review (src/patchReview.ts) with the real vscode-languageclient and the fake
 * `vscode`: a patch that needs confirmation opens a diff of the file against its patched text and
 * asks Accept / Review hunks… / Reject; Accept applies it with no annotation (no preview), an
 * empty Refactor Preview asks again, and the diff tabs close once the user decided.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApplyWorkspaceEditParams } from 'vscode-languageclient';
import { type FakeVscode, sharedFakeVscode, type WorkspaceEdit } from './helpers/fakeVscode';
import { quietHooks } from './helpers/hooks';
import { waitFor } from './helpers/waitFor';

describe('the patch review in a diff view', () => {
  let fake: FakeVscode;
  let dir: string;
  let uri: string;
  let review: import('../src/patchReview').DiffPatchReview;
  let handle: (p: ApplyWorkspaceEditParams) => Promise<unknown>;

  const params = (): ApplyWorkspaceEditParams => ({
    label: 'lsp-agent: calc.py',
    edit: {
      documentChanges: [
        {
          textDocument: { uri, version: null },
          edits: [
            {
              range: { start: { line: 1, character: 4 }, end: { line: 1, character: 16 } },
              newText: 'return a + b  # checked',
              annotationId: 'p1-h1',
            },
          ],
        },
      ],
      changeAnnotations: { 'p1-h1': { label: 'calc.py @@ -2 +2 @@', needsConfirmation: true } },
    },
  });

  before(() => {
    fake = sharedFakeVscode();
    dir = mkdtempSync(join(tmpdir(), 'lsp-agent-review-'));
    writeFileSync(join(dir, 'calc.py'), 'def add(a, b):\n    return a + b\n');
    uri = `file://${dir}/calc.py`;
    /* eslint-disable @typescript-eslint/no-require-imports */
    const { DiffPatchReview } = require('../src/patchReview') as typeof import('../src/patchReview');
    const { createMiddleware } = require('../src/middleware') as typeof import('../src/middleware');
    const { LanguageClient } = require('vscode-languageclient/node') as typeof import('vscode-languageclient/node');
    /* eslint-enable @typescript-eslint/no-require-imports */
    review = new DiffPatchReview();
    const middleware = createMiddleware({
      ...quietHooks(),
      review,
    });
    const client = new LanguageClient('lspAgentReviewTest', 'test', { command: 'true' }, { middleware });
    const handler = (client as unknown as { handleApplyWorkspaceEdit(p: ApplyWorkspaceEditParams): Promise<unknown> })
      .handleApplyWorkspaceEdit;
    handle = (p) => handler.call(client, p);
  });

  after(() => {
    review.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  beforeEach(() => {
    fake.applied.length = 0;
    fake.messages.length = 0;
    fake.builtinCommands.length = 0;
    fake.messageAnswers.length = 0;
  });

  it('shows the diff and applies the whole patch, unannotated, on Accept', async () => {
    fake.applyResult = true;
    let diffText = '';
    const original = fake.module.window as { showInformationMessage: (...a: unknown[]) => Promise<unknown> };
    const ask = original.showInformationMessage;
    // Read the diff while the question is open (it closes once answered).
    original.showInformationMessage = async (...args: unknown[]) => {
      const [tab] = fake.diffTabs;
      diffText = fake.contentProviders.get('lsp-agent-patch')?.provideTextDocumentContent(tab.input.modified as never) ?? '';
      fake.messageAnswers.push('Accept');
      return ask(...args);
    };
    try {
      assert.deepEqual(await handle(params()), { applied: true });
    } finally {
      original.showInformationMessage = ask;
    }
    assert.equal(diffText, 'def add(a, b):\n    return a + b  # checked\n');
    const diff = fake.builtinCommands.find((c) => c.id === 'vscode.diff');
    assert.ok(diff, 'a diff was opened');
    assert.equal(String(diff.args[0]), uri, 'left: the file as it is');
    assert.match(String(diff.args[2]), /calc\.py ↔ agent's patch/);
    assert.deepEqual(fake.messages[0].items, ['Accept', 'Review hunks…', 'Reject']);
    assert.match(fake.messages[0].text, /apply the agent's patch to .*calc\.py\?/);
    assert.equal(fake.applied.length, 1);
    const [[, metadata]] = (fake.applied[0].edit as WorkspaceEdit).entries[0].edits;
    assert.equal(metadata, undefined, 'no needsConfirmation: VS Code applies it without its preview');
    assert.deepEqual(fake.diffTabs, [], 'the diff closed');
    const contexts = fake.builtinCommands.filter((c) => c.id === 'setContext').map((c) => c.args);
    assert.deepEqual(contexts, [['lspAgent.patchPending', true], ['lspAgent.patchPending', false]]);
  });

  it('after an empty Refactor Preview, says nothing was applied and asks again', async () => {
    fake.applyResult = false; // VS Code: Apply with nothing ticked, or Discard
    fake.messageAnswers.push('Review hunks…', 'Reject');
    assert.deepEqual(await handle(params()), { applied: false });
    assert.equal(fake.applied.length, 1, 'one preview');
    const [, [, metadata]] = [undefined, (fake.applied[0].edit as WorkspaceEdit).entries[0].edits[0]];
    assert.equal(metadata?.needsConfirmation, true, 'the review is the Refactor Preview');
    assert.equal(fake.messages.length, 2);
    assert.equal(fake.messages[1].kind, 'warning');
    assert.match(fake.messages[1].text, /^Nothing was applied: no change was ticked in the Refactor Preview/);
  });

  it('takes the answer from the palette commands too', async () => {
    fake.applyResult = true;
    const pending = handle(params());
    await waitFor('the review to wait for an answer', () => review.pending);
    await fake.commands.get('lspAgent.rejectPatch')?.();
    assert.deepEqual(await pending, { applied: false });
    assert.equal(fake.applied.length, 0);
    assert.equal(review.pending, false);
  });

  it('a new patch replaces one the server stopped waiting for', async () => {
    fake.applyResult = true;
    const older = handle(params());
    await waitFor('the first review', () => review.pending && fake.diffTabs.length === 1);
    fake.messageAnswers.push('Accept');
    const newer = handle(params());
    assert.deepEqual(await older, { applied: false }, 'the older patch is answered: not applied');
    assert.deepEqual(await newer, { applied: true });
    assert.equal(fake.applied.length, 1, 'only the newer patch was applied');
    assert.equal(review.pending, false);
    assert.deepEqual(fake.diffTabs, [], 'both diffs closed');
  });
});
