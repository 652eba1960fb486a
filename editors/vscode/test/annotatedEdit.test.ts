import assert from 'node:assert/strict';
import type { ApplyWorkspaceEditParams, WorkspaceEdit } from 'vscode-languageclient';
import { applyTextEdits, fileChanges, needsConfirmation, offsetAt, withoutConfirmation } from '../src/annotatedEdit';

const range = (l1: number, c1: number, l2: number, c2: number) => ({
  start: { line: l1, character: c1 },
  end: { line: l2, character: c2 },
});

function patch(): ApplyWorkspaceEditParams {
  return {
    label: 'lsp-agent: a.py, new.py',
    edit: {
      documentChanges: [
        { textDocument: { uri: 'file:///w/a.py', version: 2 }, edits: [{ range: range(1, 4, 1, 16), newText: 'return a - b', annotationId: 'h1' }] },
        { kind: 'create', uri: 'file:///w/new.py', annotationId: 'h2' },
        { textDocument: { uri: 'file:///w/new.py', version: null }, edits: [{ range: range(0, 0, 0, 0), newText: 'x = 1\n', annotationId: 'h2' }] },
        { kind: 'delete', uri: 'file:///w/old.py', annotationId: 'h3' },
        { kind: 'rename', oldUri: 'file:///w/b.py', newUri: 'file:///w/c.py', annotationId: 'h4' },
      ],
      changeAnnotations: {
        h1: { label: 'a.py @@ -2 +2 @@', needsConfirmation: true },
        h2: { label: 'new.py', needsConfirmation: true },
        h3: { label: 'old.py', needsConfirmation: true },
        h4: { label: 'b.py -> c.py', needsConfirmation: true },
      },
    },
  };
}

describe('the annotated edit', () => {
  it('needs confirmation only when an annotation says so', () => {
    assert.equal(needsConfirmation(patch().edit), true);
    assert.equal(needsConfirmation({ changeAnnotations: { a: { label: 'x', needsConfirmation: false } } }), false);
    assert.equal(needsConfirmation({ changes: {} }), false);
  });

  it('without confirmation: the same changes, no annotation left anywhere', () => {
    const params = patch();
    const snapshot = JSON.stringify(params);
    const plain = withoutConfirmation(params);
    assert.equal(JSON.stringify(params), snapshot, 'the original params are not changed');
    assert.equal(plain.label, params.label);
    assert.equal(plain.edit.changeAnnotations, undefined);
    assert.equal(needsConfirmation(plain.edit), false);
    assert.doesNotMatch(JSON.stringify(plain), /annotationId/);
    assert.deepEqual(plain.edit.documentChanges?.[0], {
      textDocument: { uri: 'file:///w/a.py', version: 2 },
      edits: [{ range: range(1, 4, 1, 16), newText: 'return a - b' }],
    });
    assert.deepEqual(plain.edit.documentChanges?.[4], { kind: 'rename', oldUri: 'file:///w/b.py', newUri: 'file:///w/c.py' });
    const changes: WorkspaceEdit = { changes: { 'file:///w/a.py': [{ range: range(0, 0, 0, 0), newText: '#' }] } };
    assert.deepEqual(withoutConfirmation({ edit: changes }).edit, changes);
  });

  it('lists each file once with what it was and what it becomes', () => {
    assert.deepEqual(fileChanges(patch().edit), [
      { before: 'file:///w/a.py', after: 'file:///w/a.py', edits: [{ range: range(1, 4, 1, 16), newText: 'return a - b' }] },
      { before: undefined, after: 'file:///w/new.py', edits: [{ range: range(0, 0, 0, 0), newText: 'x = 1\n' }], created: true },
      { before: 'file:///w/old.py', after: undefined, edits: [] },
      { before: 'file:///w/b.py', after: 'file:///w/c.py', edits: [] },
    ]);
  });

  it('applies edits as VS Code does: UTF-16 columns, CRLF lines, back to front', () => {
    const text = 'def add(a, b):\r\n    return a + b\r\nprint("größe 😀")\n';
    assert.equal(offsetAt(text, 1, 4), text.indexOf('return'));
    assert.equal(offsetAt(text, 1, 99), text.indexOf('\r\nprint'), 'a column past the end stops before CRLF');
    assert.equal(offsetAt(text, 9, 0), text.length);
    const after = applyTextEdits(text, [
      { range: range(0, 0, 0, 0), newText: '# header\r\n' },
      { range: range(1, 4, 1, 16), newText: 'return a - b' },
      { range: range(2, 13, 2, 15), newText: '🙂' }, // the emoji is two UTF-16 units
    ]);
    assert.equal(after, '# header\r\ndef add(a, b):\r\n    return a - b\r\nprint("größe 🙂")\n');
  });
});
