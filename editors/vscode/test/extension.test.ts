/**
 * The whole extension (src/extension.ts with the real vscode-languageclient) against a fake
 * `lsp-agent serve` (test/fixtures/fakeServer.js, a real child process speaking LSP over stdio),
 * with the `vscode` module faked: start-up, settings, palette commands, progress in the status
 * bar, cancel, Phoenix link, restart on crash with a notice, restart on command.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Position, Range, sharedFakeVscode } from './helpers/fakeVscode';
import { waitFor as waitForEvent } from './helpers/waitFor';

const fake = sharedFakeVscode();

function waitFor<T>(what: string, probe: () => T | undefined | false): Promise<T> {
  return waitForEvent(what, probe, {
    explain: () =>
      `-- status: ${fake.statusItems.at(-1)?.text}\n-- messages: ${JSON.stringify(fake.messages)}\n` +
      `-- log:\n${fake.logLines.slice(-20).join('\n')}`,
  });
}
const FAKE_SERVER = join(__dirname, '..', '..', 'test', 'fixtures', 'fakeServer.js');
const DIE_WHILE_STARTING = join(__dirname, '..', '..', 'test', 'fixtures', 'dieWhileStarting.js');

interface Received {
  id?: string | number;
  method?: string;
  params?: Record<string, unknown> & { arguments?: unknown[]; command?: string; settings?: Record<string, unknown> };
}

describe('the extension against a fake server', function () {
  let dir: string;
  let logFile: string;
  let ext: typeof import('../src/extension');
  const context = { subscriptions: [] as { dispose(): unknown }[], extension: { id: 'lsp-agent.lsp-agent' } };

  const received = (): Received[] => {
    try {
      return readFileSync(logFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Received);
    } catch {
      return [];
    }
  };
  const ofMethod = (method: string): Received[] => received().filter((m) => m.method === method);
  const commandCalls = (command: string): Received[] =>
    ofMethod('workspace/executeCommand').filter((m) => m.params?.command === command);
  const status = (): string => fake.statusItems.at(-1)?.text ?? '';
  const idleWithCommands: boolean[] = [];
  const run = (id: string): Promise<unknown> => {
    const command = fake.commands.get(id);
    assert.ok(command, `command ${id} is not registered`);
    return Promise.resolve(command());
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lsp-agent-vscode-'));
    logFile = join(dir, 'received.jsonl');
    fake.workspaceFolders = [dir];
    fake.config = {
      'server.command': [process.execPath, FAKE_SERVER, logFile],
      'model.id': 'openai/test-model',
      'agent.maxSteps': 3,
    };
    // Loaded here, after the fake `vscode` is installed.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    ext = require('../src/extension') as typeof import('../src/extension');
    await ext.activate(context as never);
    // Each time the status bar turns idle, note whether the server's commands exist by then.
    const item = fake.statusItems.at(-1) as { text: string };
    let text = item.text;
    Object.defineProperty(item, 'text', {
      get: () => text,
      set: (value: string) => {
        if (value === '$(hubot) Agent' && text !== value) idleWithCommands.push(fake.commands.has('lspAgent.run'));
        text = value;
      },
    });
    await waitFor('the server to be up', () => status() === '$(hubot) Agent');
  });

  after(async () => {
    await ext.deactivate();
    for (const d of context.subscriptions) d.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('registers the palette commands, and the language client the server commands', () => {
    for (const id of ['lspAgent.runTask', 'lspAgent.cancelTask', 'lspAgent.showStatus', 'lspAgent.openPhoenix', 'lspAgent.restartServer']) {
      assert.ok(fake.commands.has(id), id);
    }
    for (const id of ['lspAgent.run', 'lspAgent.cancel', 'lspAgent.approve', 'lspAgent.reject', 'lspAgent.status']) {
      assert.ok(fake.commands.has(id), `${id} (code actions run it through the language client)`);
    }
    assert.equal(fake.statusItems.at(-1)?.visible, true);
  });

  it('says the server is up only once the client has registered its commands', () => {
    // The client reports `Running` before it registers its features; a stop in between (a
    // restart, a deactivation, quick on a loaded machine) left the commands behind.
    assert.deepEqual(idleWithCommands, [true]);
  });

  it('starts the server with the settings the user set, and the capabilities approvals need', () => {
    const [init] = ofMethod('initialize');
    const params = init.params as {
      initializationOptions: unknown;
      rootUri: string;
      capabilities: {
        window: { workDoneProgress: boolean };
        workspace: { configuration: boolean; workspaceEdit: { documentChanges: boolean; changeAnnotationSupport: unknown } };
      };
    };
    assert.deepEqual(params.initializationOptions, { MODEL_ID: 'openai/test-model', AGENT_MAX_STEPS: 3 });
    assert.equal(params.capabilities.window.workDoneProgress, true);
    assert.equal(params.capabilities.workspace.configuration, true);
    assert.equal(params.capabilities.workspace.workspaceEdit.documentChanges, true);
    assert.ok(params.capabilities.workspace.workspaceEdit.changeAnnotationSupport);
    // It asks for the task of `Agent: ask…` itself, so the server may offer that action.
    assert.deepEqual((params.capabilities as { experimental?: unknown }).experimental, { lspAgent: { prompt: true } });
  });

  it("shows the server's log in the output channel, without its time stamp", () => {
    assert.ok(fake.logLines.includes('[LSP Agent] info fake.server: initialize'), fake.logLines.join('\n'));
  });

  it('runs a task from the palette with the selection, and shows step n of m', async () => {
    fake.activeTextEditor = {
      document: { uri: { toString: () => `file://${dir}/app.py` } },
      selection: Object.assign(new Range(new Position(1, 0), new Position(2, 3)), { isEmpty: false }),
    };
    fake.inputAnswers.push('add tests');
    await run('lspAgent.runTask');
    const [call] = commandCalls('lspAgent.run');
    assert.deepEqual(call.params?.arguments, [
      {
        task: 'add tests',
        uri: `file://${dir}/app.py`,
        range: { start: { line: 1, character: 0 }, end: { line: 2, character: 3 } },
      },
    ]);
    await waitFor('step 1 of 3 in the status bar', () => status() === '$(sync~spin) Agent: step 1/3 · read_file');
    fake.activeTextEditor = undefined;
  });

  it('cancels the running job by its id', async () => {
    await run('lspAgent.cancelTask');
    const [call] = commandCalls('lspAgent.cancel');
    assert.deepEqual(call.params?.arguments, [{ jobId: 1 }]);
    await waitFor('idle after cancel', () => status() === '$(hubot) Agent');
  });

  it('pushes changed settings, with null for the ones left unset', async () => {
    fake.config['model.temperature'] = 0.5;
    fake.fireConfigurationChange('lspAgent.model.temperature');
    const change = await waitFor('didChangeConfiguration', () => ofMethod('workspace/didChangeConfiguration')[0]);
    const settings = change.params?.settings ?? {};
    assert.equal(settings.MODEL_TEMPERATURE, 0.5);
    assert.equal(settings.MODEL_ID, 'openai/test-model');
    assert.equal(settings.MODEL_FALLBACKS, null);
  });

  it('opens the Phoenix UI for the configured endpoint and project', async () => {
    fake.config['phoenix.endpoint'] = 'http://127.0.0.1:6111/v1/traces';
    fake.config['phoenix.project'] = 'demo';
    await run('lspAgent.openPhoenix');
    assert.deepEqual(fake.opened, ['http://127.0.0.1:6111/redirects/projects/demo']);
  });

  it('restarts a crashed server with a visible notice', async () => {
    fake.inputAnswers.push('crash');
    await run('lspAgent.runTask');
    const notice = await waitFor('the restart notice', () =>
      fake.messages.find((m) => m.kind === 'warning' && /restarting it \(attempt 1 of 5\)/.test(m.text)),
    );
    assert.deepEqual(notice.items, ['Show Log']);
    await waitFor('a second initialize', () => ofMethod('initialize').length === 2);
    await waitFor('idle again', () => status() === '$(hubot) Agent');
    assert.ok(fake.logLines.some((l) => l.includes('error fake.server: crashing on purpose')));
  });

  it('restarts on command (shutting the old server down first)', async () => {
    const before = ofMethod('shutdown').length;
    await run('lspAgent.restartServer');
    await waitFor('a third initialize', () => ofMethod('initialize').length === 3);
    assert.equal(ofMethod('shutdown').length, before + 1);
    await waitFor('idle again', () => status() === '$(hubot) Agent');
  });

  it('does not restart a server that dies while starting, and says so once', async () => {
    fake.messages.length = 0;
    // `node -m lsp_agent serve` exits at once: a broken interpreter setting.
    fake.config['server.command'] = [];
    fake.config['server.pythonPath'] = process.execPath;
    fake.fireConfigurationChange('lspAgent.server.pythonPath');
    await waitFor('stopped', () => status() === '$(circle-slash) Agent' && fake.messages.length > 0);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(fake.messages.length, 1, JSON.stringify(fake.messages));
    // node's exit code for an unknown option is 9
    assert.match(fake.messages[0].text, /exited while starting \(exit code 9\), so it is not restarted/);
    assert.deepEqual(fake.messages[0].items, ['Restart', 'Open Settings', 'Show Log']);
  });

  for (const order of ['pipes-first', 'exit-now']) {
    it(`says "exited while starting" whichever the client notices first (${order})`, async () => {
      fake.messages.length = 0;
      fake.config['server.pythonPath'] = '';
      fake.config['server.command'] = [process.execPath, DIE_WHILE_STARTING, order];
      fake.fireConfigurationChange('lspAgent.server.command');
      await waitFor('the error', () => fake.messages.length > 0);
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(fake.messages.length, 1, JSON.stringify(fake.messages));
      assert.match(fake.messages[0].text, /exited while starting \(exit code 7\), so it is not restarted/);
      assert.equal(status(), '$(circle-slash) Agent');
    });
  }

  it('says once when the server cannot be spawned', async () => {
    fake.messages.length = 0;
    fake.config['server.pythonPath'] = '';
    fake.config['server.command'] = [join(dir, 'no-such-program')];
    fake.fireConfigurationChange('lspAgent.server.command');
    await waitFor('the error', () => fake.messages.length > 0);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(fake.messages.length, 1, JSON.stringify(fake.messages));
    assert.match(fake.messages[0].text, /could not start the server .*no-such-program.*ENOENT/);
    assert.equal(status(), '$(circle-slash) Agent');
  });

  it('says when lsp-agent cannot be found, and where it looked', async () => {
    fake.messages.length = 0;
    const saved = { PATH: process.env.PATH, HOME: process.env.HOME, VIRTUAL_ENV: process.env.VIRTUAL_ENV };
    process.env.PATH = '';
    process.env.HOME = dir;
    delete process.env.VIRTUAL_ENV;
    try {
      fake.config['server.command'] = [];
      fake.fireConfigurationChange('lspAgent.server.command');
      const error = await waitFor('the not-found message', () =>
        fake.messages.find((m) => m.kind === 'error' && /could not find `lsp-agent`/.test(m.text)),
      );
      assert.deepEqual(error.items, ['Open Settings', 'Show Log']);
      assert.equal(status(), '$(warning) Agent');
      assert.ok(fake.logLines.some((l) => l.includes(`${dir}/.venv/bin/lsp-agent`)));
    } finally {
      Object.assign(process.env, saved);
      if (saved.VIRTUAL_ENV === undefined) delete process.env.VIRTUAL_ENV;
    }
    fake.config['server.command'] = [process.execPath, FAKE_SERVER, logFile];
    fake.fireConfigurationChange('lspAgent.server.command');
    await waitFor('back up', () => status() === '$(hubot) Agent');
  });
});
