/**
 * The server's patch as `workspace/applyEdit` params, read without VS Code: does it ask for
 * confirmation (change annotations with `needsConfirmation`, one per hunk), the same edit without
 * them (what "Accept" applies: VS Code then applies it at once, no preview), and the files it
 * touches with the text each would have (what the diff view shows).
 *
 * Type-only imports: this module loads (and is tested) without VS Code.
 */
import type {
  AnnotatedTextEdit,
  ApplyWorkspaceEditParams,
  CreateFile,
  DeleteFile,
  RenameFile,
  SnippetTextEdit,
  TextDocumentEdit,
  TextEdit,
  WorkspaceEdit,
} from 'vscode-languageclient';

type DocumentChange = TextDocumentEdit | CreateFile | RenameFile | DeleteFile;

/** True when VS Code would show the edit in its Refactor Preview with its hunks unticked. */
export function needsConfirmation(edit: WorkspaceEdit): boolean {
  return Object.values(edit.changeAnnotations ?? {}).some((annotation) => annotation.needsConfirmation === true);
}

/** A text edit without its annotation (a snippet edit, which lsp-agent never sends, as its text). */
function plainTextEdit(edit: TextEdit | AnnotatedTextEdit | SnippetTextEdit): TextEdit {
  return { range: edit.range, newText: 'newText' in edit ? edit.newText : edit.snippet.value };
}

function withoutAnnotation(change: DocumentChange): DocumentChange {
  if ('textDocument' in change) {
    return { textDocument: change.textDocument, edits: change.edits.map(plainTextEdit) };
  }
  const copy = { ...change };
  delete copy.annotationId;
  return copy;
}

/** The same edit with no change annotations: VS Code applies it without a preview. */
export function withoutConfirmation(params: ApplyWorkspaceEditParams): ApplyWorkspaceEditParams {
  const edit: WorkspaceEdit = {};
  if (params.edit.changes) {
    edit.changes = Object.fromEntries(
      Object.entries(params.edit.changes).map(([uri, edits]) => [uri, edits.map(plainTextEdit)]),
    );
  }
  if (params.edit.documentChanges) {
    edit.documentChanges = (params.edit.documentChanges as DocumentChange[]).map(withoutAnnotation);
  }
  return { ...params, edit };
}

/** One file of the patch: what it was (`before`: a document to read, or none) and what it becomes. */
export interface FileChange {
  /** The file the diff's left side shows (undefined: the file is new). */
  readonly before?: string;
  /** The file the patch leaves (undefined: the file is deleted). */
  readonly after?: string;
  /** Text edits to apply to the `before` document (none for a new or deleted file). */
  readonly edits: readonly TextEdit[];
  /** The text of a new file (its edits applied to an empty document). */
  readonly created?: boolean;
}

/** The files an edit touches, in order, each once. */
export function fileChanges(edit: WorkspaceEdit): FileChange[] {
  const files = new Map<string, { before?: string; after?: string; edits: TextEdit[]; created?: boolean }>();
  const touch = (uri: string): { before?: string; after?: string; edits: TextEdit[]; created?: boolean } => {
    let file = files.get(uri);
    if (!file) {
      file = { before: uri, after: uri, edits: [] };
      files.set(uri, file);
    }
    return file;
  };
  for (const [uri, edits] of Object.entries(edit.changes ?? {})) touch(uri).edits.push(...edits.map(plainTextEdit));
  for (const change of (edit.documentChanges ?? []) as DocumentChange[]) {
    if ('textDocument' in change) {
      touch(change.textDocument.uri).edits.push(...change.edits.map(plainTextEdit));
    } else if (change.kind === 'create') {
      files.set(change.uri, { before: undefined, after: change.uri, edits: [], created: true });
    } else if (change.kind === 'delete') {
      files.set(change.uri, { before: change.uri, after: undefined, edits: [] });
    } else {
      const old = files.get(change.oldUri);
      files.delete(change.oldUri);
      files.set(change.newUri, { ...(old ?? { before: change.oldUri, edits: [] }), after: change.newUri });
    }
  }
  return [...files.values()];
}

/** The offset of an LSP position (UTF-16 code units, as VS Code counts) in `text`. */
export function offsetAt(text: string, line: number, character: number): number {
  let offset = 0;
  for (let l = 0; l < line; l++) {
    const next = text.indexOf('\n', offset);
    if (next < 0) return text.length;
    offset = next + 1;
  }
  const lineEnd = text.indexOf('\n', offset);
  let end = lineEnd < 0 ? text.length : lineEnd;
  if (end > offset && text[end - 1] === '\r') end--;
  return Math.min(offset + character, end);
}

/** `text` with the (non-overlapping) edits applied, as one LSP edit list is applied. */
export function applyTextEdits(text: string, edits: readonly TextEdit[]): string {
  const located = edits
    .map((edit, index) => ({
      start: offsetAt(text, edit.range.start.line, edit.range.start.character),
      end: offsetAt(text, edit.range.end.line, edit.range.end.character),
      newText: edit.newText,
      index,
    }))
    .sort((a, b) => b.start - a.start || b.index - a.index);
  let result = text;
  for (const edit of located) result = result.slice(0, edit.start) + edit.newText + result.slice(edit.end);
  return result;
}
