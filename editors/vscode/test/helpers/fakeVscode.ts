/**
 * A stand-in for the `vscode` module, enough for vscode-languageclient to load and convert a
 * workspace edit outside VS Code. Installed with `installFakeVscode()` before the language client
 * is required. Unknown names resolve to inert classes/functions.
 */
import { readFileSync } from 'node:fs';
import Module from 'node:module';

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}

export class Range {
  readonly start: Position;
  readonly end: Position;
  constructor(start: Position | number, end: Position | number, endLine?: number, endCharacter?: number) {
    if (typeof start === 'number' && typeof end === 'number') {
      this.start = new Position(start, end);
      this.end = new Position(endLine ?? start, endCharacter ?? end);
    } else {
      this.start = start as Position;
      this.end = end as Position;
    }
  }
}

export class TextEdit {
  constructor(
    readonly range: Range,
    readonly newText: string,
  ) {}
}

export interface EntryMetadata {
  label: string;
  needsConfirmation: boolean;
  description?: string;
}

/** Records what the converter puts in, with the metadata VS Code's refactor preview reads. */
export class WorkspaceEdit {
  readonly entries: { uri: string; edits: [TextEdit, EntryMetadata | undefined][] }[] = [];
  readonly fileOps: { op: string; uri: string; metadata?: EntryMetadata }[] = [];
  set(uri: { toString(): string }, edits: [TextEdit, EntryMetadata | undefined][]): void {
    this.entries.push({ uri: uri.toString(), edits });
  }
  createFile(uri: { toString(): string }, _options: unknown, metadata?: EntryMetadata): void {
    this.fileOps.push({ op: 'create', uri: uri.toString(), metadata });
  }
  renameFile(from: { toString(): string }, _to: unknown, _options: unknown, metadata?: EntryMetadata): void {
    this.fileOps.push({ op: 'rename', uri: from.toString(), metadata });
  }
  deleteFile(uri: { toString(): string }, _options: unknown, metadata?: EntryMetadata): void {
    this.fileOps.push({ op: 'delete', uri: uri.toString(), metadata });
  }
}

export class CodeActionKind {
  constructor(readonly value: string) {}
  append(part: string): CodeActionKind {
    return new CodeActionKind(this.value ? `${this.value}.${part}` : part);
  }
  contains(other: CodeActionKind): boolean {
    return this.value === other.value || other.value.startsWith(`${this.value}.`);
  }
  intersects(other: CodeActionKind): boolean {
    return this.contains(other) || other.contains(this);
  }
  static readonly Empty = new CodeActionKind('');
  static readonly QuickFix = new CodeActionKind('quickfix');
  static readonly Refactor = new CodeActionKind('refactor');
  static readonly RefactorExtract = new CodeActionKind('refactor.extract');
  static readonly RefactorInline = new CodeActionKind('refactor.inline');
  static readonly RefactorMove = new CodeActionKind('refactor.move');
  static readonly RefactorRewrite = new CodeActionKind('refactor.rewrite');
  static readonly Source = new CodeActionKind('source');
  static readonly SourceOrganizeImports = new CodeActionKind('source.organizeImports');
  static readonly SourceFixAll = new CodeActionKind('source.fixAll');
  static readonly Notebook = new CodeActionKind('notebook');
}

class FakeUri {
  constructor(private readonly text: string) {}
  get scheme(): string {
    return this.text.split(':')[0];
  }
  get query(): string {
    const at = this.text.indexOf('?');
    return at < 0 ? '' : this.text.slice(at + 1);
  }
  get fsPath(): string {
    return decodeURIComponent(this.text.replace(/^file:\/\//, ''));
  }
  toString(): string {
    return this.text;
  }
  static parse(text: string): FakeUri {
    return new FakeUri(text);
  }
  static file(path: string): FakeUri {
    return new FakeUri(`file://${path}`);
  }
  static from(parts: { scheme: string; path: string; query?: string }): FakeUri {
    return new FakeUri(`${parts.scheme}:${parts.path}${parts.query ? `?${parts.query}` : ''}`);
  }
}

export class TabInputTextDiff {
  constructor(
    readonly original: FakeUri,
    readonly modified: FakeUri,
  ) {}
}

const disposable = { dispose(): void {} };
const event = (): typeof disposable => disposable;

function inert(): unknown {
  const target = function inertFunction(): void {};
  return new Proxy(target, {
    get(_t, prop) {
      if (prop === 'then') return undefined;
      if (prop === Symbol.toPrimitive) return () => '';
      if (prop === 'prototype') return {};
      if (prop === 'dispose') return () => undefined;
      return inert();
    },
    apply: () => inert(),
    construct: () => inert() as object,
  });
}

export interface Message {
  kind: 'info' | 'warning' | 'error';
  text: string;
  items: string[];
}

export interface FakeStatusItem {
  text: string;
  tooltip: unknown;
  command: unknown;
  backgroundColor: unknown;
  name: string;
  visible: boolean;
  show(): void;
  hide(): void;
  dispose(): void;
}

export interface FakeVscode {
  applied: { edit: WorkspaceEdit; metadata: unknown }[];
  applyResult: boolean;
  module: Record<string, unknown>;
  /** `lspAgent` settings by key under the section (user level). */
  config: Record<string, unknown>;
  workspaceFolders: string[];
  messages: Message[];
  statusMessages: string[];
  statusItems: FakeStatusItem[];
  commands: Map<string, (...args: unknown[]) => unknown>;
  /** Answers for the next input boxes, in order (undefined = dismissed). */
  inputAnswers: (string | undefined)[];
  /** Answers for the next notifications that offer buttons, in order (none left: dismissed). */
  messageAnswers: (string | undefined)[];
  /** `executeCommand` calls of commands nobody registered (`vscode.diff`, `setContext`). */
  builtinCommands: { id: string; args: unknown[] }[];
  /** Open diff tabs (`vscode.diff` opens, `tabGroups.close` closes). */
  diffTabs: { input: TabInputTextDiff; label: string }[];
  /** Text of virtual documents by URI (from registered content providers). */
  contentProviders: Map<string, { provideTextDocumentContent(uri: FakeUri): string }>;
  opened: string[];
  logLines: string[];
  activeTextEditor: unknown;
  fireConfigurationChange(...keys: string[]): void;
}

export function createFakeVscode(): FakeVscode {
  const configListeners: ((e: unknown) => void)[] = [];
  const registeredAt = new Map<string, string>();
  const state: FakeVscode = {
    applied: [],
    applyResult: true,
    module: {},
    config: {},
    workspaceFolders: [],
    messages: [],
    statusMessages: [],
    statusItems: [],
    commands: new Map(),
    inputAnswers: [],
    messageAnswers: [],
    builtinCommands: [],
    diffTabs: [],
    contentProviders: new Map(),
    opened: [],
    logLines: [],
    activeTextEditor: undefined,
    fireConfigurationChange(...keys: string[]) {
      const event = {
        affectsConfiguration: (section: string) =>
          keys.some((k) => k === section || k.startsWith(`${section}.`) || section.startsWith(`${k}.`)),
      };
      for (const listener of configListeners) listener(event);
    },
  };
  const logChannel = (name: string): Record<string, unknown> => {
    const line =
      (level: string) =>
      (text: string): void => {
        state.logLines.push(`[${name}] ${level} ${text}`);
      };
    return {
      logLevel: 3,
      name,
      onDidChangeLogLevel: event,
      append: line('append'),
      appendLine: line('append'),
      replace(): void {},
      clear(): void {},
      show(): void {},
      hide(): void {},
      dispose(): void {},
      trace: line('trace'),
      debug: line('debug'),
      info: line('info'),
      warn: line('warn'),
      error: line('error'),
    };
  };
  const message =
    (kind: Message['kind']) =>
    async (text: string, ...items: unknown[]): Promise<string | undefined> => {
      const buttons = items.filter((i): i is string => typeof i === 'string');
      state.messages.push({ kind, text, items: buttons });
      return buttons.length > 0 ? state.messageAnswers.shift() : undefined;
    };
  const configuration = (section?: string): Record<string, unknown> => {
    const prefix = section ? `${section}.` : '';
    const key = (k: string): string => (prefix.startsWith('lspAgent.') ? prefix.slice('lspAgent.'.length) + k : k);
    return {
      get: (k: string, fallback?: unknown) => (section === 'lspAgent' || section?.startsWith('lspAgent.') ? (state.config[key(k)] ?? fallback) : fallback),
      inspect: (k: string) =>
        section === 'lspAgent' ? { globalValue: state.config[key(k)] } : undefined,
      has: (k: string) => key(k) in state.config,
      update: async () => undefined,
    };
  };
  const explicit: Record<string, unknown> = {
    version: '1.91.0',
    Position,
    Range,
    TextEdit,
    WorkspaceEdit,
    Uri: FakeUri,
    TabInputTextDiff,
    CodeActionKind,
    LogLevel: { Off: 0, Trace: 1, Debug: 2, Info: 3, Warning: 4, Error: 5 },
    StatusBarAlignment: { Left: 1, Right: 2 },
    ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
    ThemeColor: class {
      constructor(readonly id: string) {}
    },
    Disposable: class {
      static from(): typeof disposable {
        return disposable;
      }
      dispose(): void {}
    },
    EventEmitter: class {
      event = event;
      fire(): void {}
      dispose(): void {}
    },
    window: new Proxy(
      {
        createOutputChannel: (name: string) => logChannel(name),
        createStatusBarItem: () => {
          const item: FakeStatusItem = {
            text: '',
            tooltip: '',
            command: undefined,
            backgroundColor: undefined,
            name: '',
            visible: false,
            show() {
              item.visible = true;
            },
            hide() {
              item.visible = false;
            },
            dispose() {},
          };
          state.statusItems.push(item);
          return item;
        },
        showInformationMessage: message('info'),
        showWarningMessage: message('warning'),
        showErrorMessage: message('error'),
        showInputBox: async () => state.inputAnswers.shift(),
        tabGroups: {
          get all() {
            return [{ tabs: state.diffTabs }];
          },
          close: async (tabs: unknown[]) => {
            state.diffTabs = state.diffTabs.filter((t) => !tabs.includes(t));
            return true;
          },
        },
        showQuickPick: async () => undefined,
        setStatusBarMessage: (text: string) => {
          state.statusMessages.push(text);
          return disposable;
        },
        withProgress: (_options: unknown, task: (p: unknown, t: unknown) => Promise<unknown>) =>
          task({ report(): void {} }, { isCancellationRequested: false, onCancellationRequested: event }),
        get activeTextEditor() {
          return state.activeTextEditor;
        },
      },
      {
        get: (t: Record<string, unknown>, p: string) => {
          const d = Object.getOwnPropertyDescriptor(t, p);
          return d ? (d.get ? d.get.call(t) : d.value) : inert();
        },
      },
    ),
    commands: new Proxy(
      {
        registerCommand: (id: string, fn: (...args: unknown[]) => unknown) => {
          if (state.commands.has(id)) {
            throw new Error(`command '${id}' already exists, registered ${registeredAt.get(id) ?? '?'}`);
          }
          state.commands.set(id, fn);
          registeredAt.set(id, new Error('at').stack?.split('\n').slice(2, 9).join('\n') ?? '');
          return {
            dispose: () => {
              if (state.commands.get(id) !== fn) return; // an older registration's dispose
              state.commands.delete(id);
              registeredAt.delete(id);
            },
          };
        },
        executeCommand: async (id: string, ...args: unknown[]) => {
          const command = state.commands.get(id);
          if (command) return command(...args);
          state.builtinCommands.push({ id, args });
          if (id === 'vscode.diff') {
            const [left, right, label] = args as [FakeUri, FakeUri, string];
            if (!state.diffTabs.some((t) => t.input.modified.toString() === right.toString())) {
              state.diffTabs.push({ input: new TabInputTextDiff(left, right), label });
            }
          }
          return undefined;
        },
      },
      { get: (t: Record<string, unknown>, p: string) => (p in t ? t[p] : inert()) },
    ),
    env: new Proxy(
      {
        appName: 'Visual Studio Code (fake)',
        language: 'en',
        machineId: 'fake',
        sessionId: 'fake',
        uiKind: 1,
        openExternal: async (uri: { toString(): string }) => {
          state.opened.push(uri.toString());
          return true;
        },
      },
      { get: (t: Record<string, unknown>, p: string) => (p in t ? t[p] : inert()) },
    ),
    workspace: new Proxy(
      {
        textDocuments: [],
        get workspaceFolders() {
          return state.workspaceFolders.map((path, index) => ({ uri: FakeUri.file(path), name: path, index }));
        },
        getConfiguration: configuration,
        onDidChangeConfiguration: (listener: (e: unknown) => void) => {
          configListeners.push(listener);
          return { dispose: () => configListeners.splice(configListeners.indexOf(listener), 1) };
        },
        asRelativePath: (uri: { toString(): string }) => uri.toString(),
        registerTextDocumentContentProvider: (
          scheme: string,
          provider: { provideTextDocumentContent(uri: FakeUri): string },
        ) => {
          state.contentProviders.set(scheme, provider);
          return { dispose: () => state.contentProviders.delete(scheme) };
        },
        openTextDocument: async (uri: FakeUri) => {
          const provider = state.contentProviders.get(uri.scheme);
          const text = provider ? provider.provideTextDocumentContent(uri) : readFileSync(uri.fsPath, 'utf8');
          return { uri, getText: () => text };
        },
        applyEdit: async (edit: WorkspaceEdit, metadata: unknown) => {
          state.applied.push({ edit, metadata });
          return state.applyResult;
        },
      },
      {
        get: (t: Record<string, unknown>, p: string) => {
          const d = Object.getOwnPropertyDescriptor(t, p);
          return d ? (d.get ? d.get.call(t) : d.value) : inert();
        },
      },
    ),
  };
  const classes = new Map<string, unknown>();
  state.module = new Proxy(explicit, {
    get(t, prop: string) {
      if (prop in t) return t[prop];
      // `__esModule`: TypeScript's import helpers then use this proxy as is, not a copy of its keys.
      if (prop === '__esModule') return true;
      if (prop === 'then' || typeof prop !== 'string') return undefined;
      if (/^[A-Z]/.test(prop)) {
        if (!classes.has(prop)) classes.set(prop, class {});
        return classes.get(prop);
      }
      return inert();
    },
  });
  return state;
}

type Loader = (request: string, parent: unknown, isMain: boolean) => unknown;

/** Make `require('vscode')` return `fake.module` until the returned function is called. */
export function installFakeVscode(fake: FakeVscode): () => void {
  const mod = Module as unknown as { _load: Loader };
  const original = mod._load;
  mod._load = function load(request: string, parent: unknown, isMain: boolean): unknown {
    if (request === 'vscode') return fake.module;
    return original.call(this, request, parent, isMain);
  };
  return () => {
    mod._load = original;
  };
}

let shared: FakeVscode | undefined;

/**
 * The one fake `vscode` of the test run, installed on first use. The language client binds
 * `require('vscode')` when it is first loaded, so every test file must share the same fake.
 */
export function sharedFakeVscode(): FakeVscode {
  if (!shared) {
    shared = createFakeVscode();
    installFakeVscode(shared);
  }
  return shared;
}
