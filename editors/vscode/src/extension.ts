/**
 * The VS Code side of lsp-agent: starts `lsp-agent serve`, keeps it running, and gives it a
 * status bar item, palette commands and settings. The logic lives in plain modules (discovery,
 * settings, status, restart policy, Phoenix URL, middleware); this file wires them to VS Code.
 */
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as vscode from 'vscode';
import {
  CloseAction,
  DidChangeConfigurationNotification,
  ErrorAction,
  ExecuteCommandRequest,
  LanguageClient,
  type LanguageClientOptions,
  RevealOutputChannelOn,
  State,
  WorkDoneProgressCancelNotification,
} from 'vscode-languageclient/node';
import {
  affectsServerLaunch,
  affectsServerSettings,
  initializationOptions,
  serverLaunchSettings,
  serverPayload,
} from './configuration';
import {
  buildRunArgs,
  CANCEL_COMMAND,
  chooseCancelTarget,
  type JobId,
  jobIdOf,
  RUN_COMMAND,
  STATUS_COMMAND,
  summariseStatus,
} from './jobs';
import { completionView } from './completions';
import { createMiddleware } from './middleware';
import { DiffPatchReview } from './patchReview';
import { phoenixLink } from './phoenix';
import { RestartPolicy } from './restartPolicy';
import { discoverServer, type FoundServer } from './serverDiscovery';
import { createStderrClassifier } from './serverLog';
import { describeStartFailure, errorText, ServerProcess } from './serverProcess';
import { SECTION } from './settingsMap';
import { type ServerState, StatusModel } from './statusModel';

/**
 * The language client logs its errors to the output channel; the notifications (with Restart /
 * Settings / Log actions) come from the extension, once per failure.
 */
class AgentLanguageClient extends LanguageClient {
  override error(message: string, data?: unknown, showNotification: boolean | 'force' = true): void {
    super.error(message, data, showNotification === 'force' ? false : showNotification);
  }
}

const SHOW_LOG = 'Show Log';
const OPEN_SETTINGS = 'Open Settings';
const RESTART = 'Restart';

/** One start of the server (the language client may respawn it within one attempt after a crash). */
interface StartAttempt {
  process: ServerProcess | undefined;
  /** The failure of this start was reported to the user (once, whichever path saw it first). */
  reported: boolean;
}

export class AgentController implements vscode.Disposable {
  private readonly output: vscode.LogOutputChannel;
  private readonly statusItem: vscode.StatusBarItem;
  private readonly completionItem: vscode.StatusBarItem;
  private readonly model = new StatusModel();
  private readonly restartPolicy = new RestartPolicy();
  private readonly review = new DiffPatchReview();
  private readonly disposables: vscode.Disposable[] = [];
  private client: LanguageClient | undefined;
  private server: FoundServer | undefined;
  private lastJobId: JobId | undefined;
  private lastTask = '';
  private restarting: Promise<void> | undefined;
  /** The server finished starting since it was last (re)started. */
  private reachedRunning = false;
  /** Resolves once the running client has registered its features (see onDidChangeState). */
  private clientReady: Promise<void> | undefined;
  private attempt: StartAttempt | undefined;

  constructor(private readonly context: vscode.ExtensionContext) {
    this.output = vscode.window.createOutputChannel('LSP Agent', { log: true });
    this.completionItem = vscode.window.createStatusBarItem('lspAgent.completions', vscode.StatusBarAlignment.Right, 100);
    this.completionItem.name = 'LSP Agent: inline completions';
    this.completionItem.command = 'lspAgent.toggleCompletions';
    this.statusItem = vscode.window.createStatusBarItem('lspAgent.status', vscode.StatusBarAlignment.Left, 0);
    this.statusItem.name = 'LSP Agent';
    this.statusItem.command = 'lspAgent.showMenu';
    this.disposables.push(
      this.output,
      this.statusItem,
      this.completionItem,
      vscode.commands.registerCommand('lspAgent.toggleCompletions', () => this.toggleCompletions()),
      this.review,
      vscode.commands.registerCommand('lspAgent.runTask', () => this.runTask()),
      vscode.commands.registerCommand('lspAgent.cancelTask', () => this.cancel()),
      vscode.commands.registerCommand('lspAgent.showStatus', () => this.showStatus()),
      vscode.commands.registerCommand('lspAgent.openPhoenix', () => this.openPhoenix()),
      vscode.commands.registerCommand('lspAgent.restartServer', () => this.restart('manual')),
      vscode.commands.registerCommand('lspAgent.showLog', () => this.output.show(true)),
      vscode.commands.registerCommand('lspAgent.showMenu', () => this.showMenu()),
      vscode.workspace.onDidChangeConfiguration((event) => this.onConfigurationChanged(event)),
      vscode.workspace.onDidChangeWorkspaceFolders(() => {
        if (!this.server) void this.restart('settings');
      }),
    );
    this.render();
    this.statusItem.show();
  }

  dispose(): void {
    void this.stop();
    for (const d of this.disposables) d.dispose();
  }

  // ---- server lifecycle -------------------------------------------------------------------

  private config(): vscode.WorkspaceConfiguration {
    return vscode.workspace.getConfiguration(SECTION);
  }

  private folders(): string[] {
    return (vscode.workspace.workspaceFolders ?? [])
      .filter((f) => f.uri.scheme === 'file')
      .map((f) => f.uri.fsPath);
  }

  private setServerState(state: ServerState): void {
    this.model.setServer(state);
    this.render();
  }

  /** The status bar toggle of inline completions (see completions.ts). */
  private renderCompletions(): void {
    const config = this.config();
    const offered = this.client?.isRunning() === true && this.client.initializeResult?.capabilities.inlineCompletionProvider !== undefined;
    const view = completionView({
      enabled: config.get<boolean>('completion.enabled') ?? true,
      offered,
      modelId: config.inspect<string>('completion.modelId')?.globalValue ?? '',
    });
    this.completionItem.text = view.text;
    this.completionItem.tooltip = view.tooltip;
    if (view.visible && this.model.serverState === 'running') this.completionItem.show();
    else this.completionItem.hide();
  }

  private async toggleCompletions(): Promise<void> {
    const config = this.config();
    const enabled = config.get<boolean>('completion.enabled') ?? true;
    await config.update('completion.enabled', !enabled, vscode.ConfigurationTarget.Global);
    vscode.window.setStatusBarMessage(`LSP Agent: inline completions ${enabled ? 'off' : 'on'}`, 3000);
    this.renderCompletions();
  }

  async start(): Promise<void> {
    const config = this.config();
    const launch = serverLaunchSettings(config);
    for (const key of launch.ignored) {
      this.output.warn(
        `${key} is set in this workspace's settings and ignored: the program that starts the server comes from your user settings only.`,
      );
    }
    const found = discoverServer({
      command: launch.command,
      pythonPath: launch.pythonPath,
      workspaceFolders: this.folders(),
      env: process.env,
      platform: process.platform,
      homedir: os.homedir(),
      isExecutable,
    });
    if (!found.ok) {
      this.server = undefined;
      this.output.error(found.message);
      this.output.info(`Looked for: ${found.tried.join(', ') || '(nowhere)'}`);
      this.setServerState('missing');
      void vscode.window.showErrorMessage(found.message, OPEN_SETTINGS, SHOW_LOG).then((choice) => {
        if (choice === OPEN_SETTINGS) void this.openSettings();
        if (choice === SHOW_LOG) this.output.show(true);
      });
      return;
    }
    this.server = found;
    this.output.info(`Starting the server: ${found.description}`);

    const folders = this.folders();
    const attempt: StartAttempt = { process: undefined, reported: false };
    this.attempt = attempt;
    // The extension spawns the server itself: a failed spawn and an early exit are then facts
    // (ServerProcess), and the message does not depend on which the client noticed first.
    const spawnServer = async (): Promise<ChildProcess> => {
      attempt.process = await ServerProcess.start(found.command, found.args, {
        cwd: folders[0] ?? os.homedir(),
        env: { ...process.env, PYTHONUNBUFFERED: '1' },
      });
      return attempt.process.child;
    };
    const classify = createStderrClassifier();
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: 'file' }, { scheme: 'untitled' }],
      outputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      initializationOptions: initializationOptions(config),
      // No retry loop: the failure is logged, and shown once by start().
      initializationFailedHandler: () => false,
      middleware: createMiddleware({
        onProgress: (token, value) => {
          this.model.progress(token, value);
          this.render();
        },
        approvalStarted: () => {
          this.model.approvalStarted();
          this.render();
        },
        approvalEnded: () => {
          this.model.approvalEnded();
          this.render();
        },
        onJobStarted: (jobId) => {
          this.lastJobId = jobId;
        },
        askForTask: () => this.askForTask(),
        review: this.review,
        serverPayload: (scopeUri) =>
          serverPayload(vscode.workspace.getConfiguration(SECTION, scopeUri ? vscode.Uri.parse(scopeUri) : undefined)),
        completionsEnabled: () => this.config().get<boolean>('completion.enabled') ?? true,
        emptyRangeAt: (position) => new vscode.Range(position as vscode.Position, position as vscode.Position),
      }),
      errorHandler: {
        error: (_error, _message, count) => ({
          action: (count ?? 0) <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown,
          handled: true,
        }),
        closed: () => {
          if (!this.reachedRunning) {
            void this.reportStartFailure(attempt, found);
            return { action: CloseAction.DoNotRestart, handled: true };
          }
          const decision = this.restartPolicy.onCrash(Date.now(), true);
          this.reachedRunning = false;
          this.output.warn(decision.message);
          if (decision.restart) {
            void vscode.window.showWarningMessage(decision.message, SHOW_LOG).then((choice) => {
              if (choice === SHOW_LOG) this.output.show(true);
            });
            return { action: CloseAction.Restart, handled: true };
          }
          void vscode.window.showErrorMessage(decision.message, RESTART, OPEN_SETTINGS, SHOW_LOG).then((choice) => {
            if (choice === RESTART) void this.restart('manual');
            if (choice === OPEN_SETTINGS) void this.openSettings();
            if (choice === SHOW_LOG) this.output.show(true);
          });
          return { action: CloseAction.DoNotRestart, handled: true };
        },
      },
      stdioOptions: {
        // Only used by pipe/socket transports; with stdio, stdout is the JSON-RPC stream.
        stdout: (input, channel) => {
          input.setEncoding('utf8');
          input.on('data', (chunk: string) => channel.info(chunk.trimEnd()));
        },
        stderr: (input, channel) => {
          let buffered = '';
          input.setEncoding('utf8');
          input.on('data', (chunk: string) => {
            buffered += chunk;
            const lines = buffered.split(/\r?\n/);
            buffered = lines.pop() ?? '';
            for (const line of lines) {
              if (!line) continue;
              const { level, text } = classify(line);
              channel[level](text);
            }
          });
          input.on('end', () => {
            if (buffered) channel.info(classify(buffered).text);
          });
        },
      },
    };

    const client = new AgentLanguageClient('lspAgent', 'LSP Agent', spawnServer, clientOptions);
    // The extension asks for the task of `Agent: ask…` (middleware.executeCommand), so the
    // server may offer that action: `capabilities.experimental.lspAgent.prompt`.
    client.registerFeature({
      fillClientCapabilities: (capabilities) => {
        const experimental = (capabilities.experimental ?? {}) as Record<string, unknown>;
        capabilities.experimental = { ...experimental, lspAgent: { prompt: true } };
      },
      initialize: () => undefined,
      getState: () => ({ kind: 'static' }),
      clear: () => undefined,
    });
    this.client = client;
    client.onDidChangeState((event) => {
      if (this.client !== client) return;
      if (event.newState === State.Running) {
        this.reachedRunning = true;
        // `Running` comes as soon as `initialize` is answered; the client registers its
        // features (the server's commands among them) only after sending `initialized`. The
        // server counts as up, and may be stopped, once that is done: its start promise (the
        // same one, in flight: a restart by the client after a crash included) resolves.
        const ready = client.start().then(
          () => {
            if (this.client === client) this.setServerState('running');
          },
          () => undefined,
        );
        this.clientReady = ready;
      } else if (event.newState === State.Starting) this.setServerState('starting');
      else this.setServerState('stopped');
    });
    this.reachedRunning = false;
    this.setServerState('starting');
    try {
      await client.start();
    } catch (error) {
      if (this.client !== client) return;
      this.setServerState('stopped');
      await this.reportStartFailure(attempt, found, error);
    }
  }

  /**
   * Tells the user, once per start, why the server did not come up. Called by both paths that
   * can see it (start() rejecting, the connection closing); the message depends only on what
   * happened to the process (see describeStartFailure), so it is the same whichever comes first.
   */
  private async reportStartFailure(attempt: StartAttempt, found: FoundServer, error?: unknown): Promise<void> {
    if (attempt.reported) return;
    attempt.reported = true;
    // An early exit is the likely cause: wait for it (a dead server's exit comes within ms).
    const exit = attempt.process ? await attempt.process.exitWithin(5000) : undefined;
    const message = describeStartFailure({
      description: found.description,
      error,
      spawned: attempt.process !== undefined,
      exit,
    });
    this.output.error(message);
    if (this.attempt !== attempt) return; // a newer start replaced this one meanwhile
    void vscode.window.showErrorMessage(message, RESTART, OPEN_SETTINGS, SHOW_LOG).then((choice) => {
      if (choice === RESTART) void this.restart('manual');
      if (choice === OPEN_SETTINGS) void this.openSettings();
      if (choice === SHOW_LOG) this.output.show(true);
    });
  }

  async stop(): Promise<void> {
    const client = this.client;
    const process = this.attempt?.process;
    const ready = this.clientReady;
    this.client = undefined;
    this.attempt = undefined;
    this.clientReady = undefined;
    if (client) {
      // Stopping between `initialize` and the registration of the client's features would
      // leave those (the server's commands) registered, and the next start could not register
      // them again ("command 'lspAgent.run' already exists"). A loaded machine widens that gap.
      if (ready && client.state === State.Running) {
        await Promise.race([ready, new Promise((resolve) => setTimeout(resolve, 10000))]);
      }
      try {
        if (client.needsStop()) await client.stop(3000);
      } catch (error) {
        this.output.warn(`Stopping the server: ${errorText(error)}`);
      }
    }
    // The client asked it to exit; a server that does not is ended (as the client does for
    // servers it spawned itself).
    await process?.stop(2000);
    this.setServerState('stopped');
  }

  async restart(reason: 'manual' | 'settings'): Promise<void> {
    if (this.restarting) return this.restarting;
    this.restarting = (async () => {
      this.restartPolicy.reset();
      this.output.info(reason === 'manual' ? 'Restarting the server.' : 'Server settings changed: restarting the server.');
      await this.stop();
      await this.start();
    })().finally(() => {
      this.restarting = undefined;
    });
    return this.restarting;
  }

  private onConfigurationChanged(event: vscode.ConfigurationChangeEvent): void {
    if (event.affectsConfiguration(`${SECTION}.completion`)) this.renderCompletions();
    if (affectsServerLaunch(event)) {
      void this.restart('settings');
      return;
    }
    if (affectsServerSettings(event) && this.client?.isRunning()) {
      this.client
        .sendNotification(DidChangeConfigurationNotification.type, { settings: serverPayload(this.config()) })
        .catch((error: unknown) => this.output.warn(`Sending settings: ${errorText(error)}`));
    }
  }

  // ---- commands ---------------------------------------------------------------------------

  /** The running client, or undefined after telling the user why there is none. */
  private async runningClient(): Promise<LanguageClient | undefined> {
    if (this.restarting) await this.restarting;
    const client = this.client;
    if (client && client.state === State.Starting) {
      try {
        await client.start();
      } catch {
        // reported by start()
      }
    }
    if (client?.isRunning()) return client;
    const choice = await vscode.window.showWarningMessage(
      this.model.serverState === 'missing'
        ? 'LSP Agent: lsp-agent was not found, so the server is not running.'
        : 'LSP Agent: the server is not running.',
      RESTART,
      SHOW_LOG,
    );
    if (choice === RESTART) void this.restart('manual');
    if (choice === SHOW_LOG) this.output.show(true);
    return undefined;
  }

  private async askForTask(): Promise<string | undefined> {
    const editor = vscode.window.activeTextEditor;
    const where = editor
      ? `${editor.selection.isEmpty ? 'Works on' : 'Works on the selection in'} ${vscode.workspace.asRelativePath(editor.document.uri)}`
      : 'No editor is active: the agent works on the workspace';
    const task = await vscode.window.showInputBox({
      title: 'LSP Agent: Run task',
      prompt: `What should the agent do? ${where}.`,
      placeHolder: 'e.g. add a docstring to this function',
      value: this.lastTask,
      ignoreFocusOut: true,
      validateInput: (text) => (text.trim() ? undefined : 'Describe the task.'),
    });
    if (task?.trim()) this.lastTask = task.trim();
    return task?.trim() || undefined;
  }

  private async runTask(): Promise<void> {
    const task = await this.askForTask();
    if (!task) return;
    const client = await this.runningClient();
    if (!client) return;
    const editor = vscode.window.activeTextEditor;
    const c2p = client.code2ProtocolConverter;
    const args = buildRunArgs(
      task,
      editor ? { uri: c2p.asUri(editor.document.uri), range: c2p.asRange(editor.selection) } : undefined,
    );
    try {
      const result: unknown = await client.sendRequest(ExecuteCommandRequest.type, {
        command: RUN_COMMAND,
        arguments: [args],
      });
      const jobId = jobIdOf(result);
      if (jobId !== undefined) {
        this.lastJobId = jobId;
        vscode.window.setStatusBarMessage(`LSP Agent: job ${jobId} started`, 4000);
      }
    } catch (error) {
      void vscode.window.showErrorMessage(`LSP Agent: ${errorText(error)}`);
    }
  }

  private async serverStatus(client: LanguageClient): Promise<unknown> {
    return client.sendRequest(ExecuteCommandRequest.type, { command: STATUS_COMMAND, arguments: [] });
  }

  private async cancel(): Promise<void> {
    const client = await this.runningClient();
    if (!client) return;
    let status: unknown;
    try {
      status = await this.serverStatus(client);
    } catch (error) {
      this.output.warn(`lspAgent.status failed: ${errorText(error)}`);
    }
    const target = chooseCancelTarget({ status, lastJobId: this.lastJobId, activeTokens: this.model.activeTokens() });
    try {
      if (target.kind === 'job') {
        await client.sendRequest(ExecuteCommandRequest.type, {
          command: CANCEL_COMMAND,
          arguments: [{ jobId: target.jobId }],
        });
        vscode.window.setStatusBarMessage(`LSP Agent: cancelling job ${target.jobId}…`, 4000);
      } else if (target.kind === 'progress') {
        for (const token of target.tokens) {
          await client.sendNotification(WorkDoneProgressCancelNotification.type, { token });
        }
        vscode.window.setStatusBarMessage('LSP Agent: cancelling…', 4000);
      } else {
        void vscode.window.showInformationMessage('LSP Agent: no job is running.');
      }
    } catch (error) {
      void vscode.window.showErrorMessage(`LSP Agent: cancel failed: ${errorText(error)}`);
    }
  }

  private async showStatus(): Promise<void> {
    const statusText = this.model.view().tooltip.replace(/^LSP Agent: /, '').replace(/ Click for.*$/, '');
    if (!this.client?.isRunning()) {
      const where = this.server ? ` Server command: ${this.server.description}.` : '';
      const choice = await vscode.window.showInformationMessage(`LSP Agent: ${statusText}${where}`, RESTART, SHOW_LOG);
      if (choice === RESTART) void this.restart('manual');
      if (choice === SHOW_LOG) this.output.show(true);
      return;
    }
    let status: unknown;
    try {
      status = await this.serverStatus(this.client);
    } catch (error) {
      void vscode.window.showErrorMessage(`LSP Agent: lspAgent.status failed: ${errorText(error)}`);
      return;
    }
    this.output.info(`Server: ${this.server?.description ?? '?'}`);
    this.output.info(`Status: ${JSON.stringify(status, null, 2)}`);
    const summary = summariseStatus({ status, serverDescription: this.server?.description, statusText });
    const choice = await vscode.window.showInformationMessage(summary, 'Show Details');
    if (choice) this.output.show(true);
  }

  private async openPhoenix(): Promise<void> {
    const config = this.config();
    let status: unknown;
    if (this.client?.isRunning()) {
      try {
        status = await this.serverStatus(this.client);
      } catch {
        status = undefined;
      }
    }
    const url = phoenixLink(status, {
      endpoint: config.get<string>('phoenix.endpoint') ?? '',
      project: config.get<string>('phoenix.project') ?? '',
    });
    this.output.info(`Opening Phoenix: ${url}`);
    await vscode.env.openExternal(vscode.Uri.parse(url));
  }

  private async openSettings(): Promise<void> {
    await vscode.commands.executeCommand('workbench.action.openSettings', `@ext:${this.context.extension.id}`);
  }

  private async showMenu(): Promise<void> {
    const running = this.model.view().kind === 'running' || this.model.view().kind === 'approval';
    const patch = this.review.pending
      ? [
          { label: '$(check) Accept patch', command: 'lspAgent.acceptPatch' },
          { label: '$(checklist) Review patch hunks…', command: 'lspAgent.reviewPatch' },
          { label: '$(close) Reject patch', command: 'lspAgent.rejectPatch' },
        ]
      : [];
    const items: (vscode.QuickPickItem & { command: string })[] = [
      ...patch,
      { label: '$(play) Run task…', command: 'lspAgent.runTask' },
      ...(running ? [{ label: '$(debug-stop) Cancel', command: 'lspAgent.cancelTask' }] : []),
      { label: '$(info) Show status', command: 'lspAgent.showStatus' },
      { label: '$(link-external) Open trace in Phoenix', command: 'lspAgent.openPhoenix' },
      { label: '$(sparkle) Turn inline completions on/off', command: 'lspAgent.toggleCompletions' },
      { label: '$(debug-restart) Restart server', command: 'lspAgent.restartServer' },
      { label: '$(output) Show log', command: 'lspAgent.showLog' },
      { label: '$(gear) Settings', command: 'lspAgent.openSettings' },
    ];
    const pick = await vscode.window.showQuickPick(items, { title: 'LSP Agent', placeHolder: this.model.view().tooltip });
    if (!pick) return;
    if (pick.command === 'lspAgent.openSettings') await this.openSettings();
    else await vscode.commands.executeCommand(pick.command);
  }

  private render(): void {
    this.renderCompletions();
    const view = this.model.view();
    this.statusItem.text = view.text;
    this.statusItem.tooltip = view.tooltip;
    this.statusItem.backgroundColor = view.background ? new vscode.ThemeColor(view.background) : undefined;
  }
}

function isExecutable(path: string): boolean {
  try {
    if (!fs.statSync(path).isFile()) return false;
    if (process.platform === 'win32') return true;
    fs.accessSync(path, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

let controller: AgentController | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  controller = new AgentController(context);
  context.subscriptions.push(controller);
  void controller.start();
}

export async function deactivate(): Promise<void> {
  await controller?.stop();
  controller = undefined;
}
