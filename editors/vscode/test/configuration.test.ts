import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  affectsServerLaunch,
  affectsServerSettings,
  type ConfigReader,
  configurationAnswer,
  initializationOptions,
  serverLaunchSettings,
  serverPayload,
} from '../src/configuration';
import { contributedProperty, SERVER_SETTINGS } from '../src/settingsMap';

/** A `lspAgent` configuration: `user` values set at user level, `workspace` at workspace level. */
function reader(user: Record<string, unknown> = {}, workspace: Record<string, unknown> = {}): ConfigReader {
  const defaults = Object.fromEntries(SERVER_SETTINGS.map((s) => [s.key, s.default]));
  return {
    get<T>(key: string): T | undefined {
      return (key in workspace ? workspace[key] : key in user ? user[key] : defaults[key]) as T | undefined;
    },
    inspect<T>(key: string) {
      return {
        defaultValue: defaults[key] as T,
        globalValue: user[key] as T | undefined,
        workspaceValue: workspace[key] as T | undefined,
      };
    },
  };
}

function event(...changed: string[]): { affectsConfiguration(s: string): boolean } {
  return {
    affectsConfiguration: (section: string) =>
      changed.some((key) => key === section || key.startsWith(`${section}.`) || section.startsWith(`${key}.`)),
  };
}

describe('configuration sent to the server', () => {
  it('sends null for every setting left at its default (so .env and the environment apply)', () => {
    const payload = serverPayload(reader());
    assert.deepEqual(Object.keys(payload).sort(), SERVER_SETTINGS.map((s) => s.serverKey).sort());
    assert.ok(Object.values(payload).every((v) => v === null));
    assert.deepEqual(initializationOptions(reader()), {});
  });

  it('sends the values the user set, by env-style key, workspace over user for ordinary keys', () => {
    const config = reader(
      { 'model.id': 'openai/qwen', 'model.temperature': 0, 'phoenix.enabled': false, 'agent.maxSteps': 10 },
      { 'model.temperature': 0.3, 'agent.maxSteps': 12 },
    );
    assert.deepEqual(initializationOptions(config), {
      MODEL_ID: 'openai/qwen',
      MODEL_TEMPERATURE: 0.3,
      PHOENIX_ENABLED: false,
      AGENT_MAX_STEPS: 12,
    });
  });

  it('sends security settings from the user settings only, never from the workspace', () => {
    const config = reader(
      { 'model.id': ' openai/mine ', 'model.fallbacks': ['openai/a@http://h:1/v1', ' ', 'b '] },
      {
        'model.id': 'openai/stolen',
        'model.apiBase': 'http://elsewhere.invalid/v1',
        'sandbox.backend': 'local',
        'sandbox.checkCommand': 'sh -c "touch /tmp/pwned"',
        'phoenix.endpoint': 'http://elsewhere.invalid/v1/traces',
        'agent.policyFile': '/tmp/loose.toml',
        'mcpConfig': '/tmp/mcp.json',
        'model.fallbacks': ['evil@http://elsewhere.invalid/v1'],
      },
    );
    assert.deepEqual(initializationOptions(config), {
      MODEL_ID: 'openai/mine',
      MODEL_FALLBACKS: ['openai/a@http://h:1/v1', 'b'],
    });
  });

  it('declares every security setting with application scope', () => {
    for (const setting of SERVER_SETTINGS.filter((s) => s.userScope)) {
      assert.equal(contributedProperty(setting, 0).scope, 'application', setting.key);
    }
    assert.ok(SERVER_SETTINGS.filter((s) => s.userScope).length >= 10);
  });

  it('sends a value set explicitly to the default too', () => {
    assert.deepEqual(initializationOptions(reader({ 'sandbox.backend': 'auto' })), { SANDBOX_BACKEND: 'auto' });
  });

  it('drops a value of the wrong type instead of sending it', () => {
    assert.equal(serverPayload(reader({ 'model.maxTokens': 'many' })).MODEL_MAX_TOKENS, null);
  });

  it('answers workspace/configuration for the section, a VS Code key and a server key', () => {
    const payload = serverPayload(reader({ 'model.id': 'openai/x' }));
    assert.deepEqual(configurationAnswer('lspAgent', payload), { value: payload });
    assert.deepEqual(configurationAnswer('lspAgent.model.id', payload), { value: 'openai/x' });
    assert.deepEqual(configurationAnswer('lspAgent.MODEL_ID', payload), { value: 'openai/x' });
    assert.deepEqual(configurationAnswer('lspAgent.model.apiBase', payload), { value: null });
    assert.equal(configurationAnswer('editor', payload), undefined);
    assert.equal(configurationAnswer(undefined, payload), undefined);
    assert.equal(configurationAnswer('lspAgent.server.command', payload), undefined);
  });

  it('tells server-setting changes from launch changes', () => {
    assert.ok(affectsServerSettings(event('lspAgent.model.id')));
    assert.ok(affectsServerSettings(event('lspAgent')));
    assert.ok(!affectsServerSettings(event('lspAgent.server.command')));
    assert.ok(!affectsServerSettings(event('editor.fontSize')));
    assert.ok(affectsServerLaunch(event('lspAgent.server.pythonPath')));
    assert.ok(affectsServerLaunch(event('lspAgent.server.command')));
    assert.ok(!affectsServerLaunch(event('lspAgent.model.id')));
  });

  it('starts the server from the user settings only: a workspace cannot choose the program', () => {
    const planted = { 'server.command': ['sh', '-c', 'touch /tmp/pwned'], 'server.pythonPath': '/repo/evil/python' };
    const fromWorkspace = serverLaunchSettings(reader({}, planted));
    assert.deepEqual(fromWorkspace.command, []);
    assert.equal(fromWorkspace.pythonPath, '');
    assert.deepEqual([...fromWorkspace.ignored].sort(), ['lspAgent.server.command', 'lspAgent.server.pythonPath']);
    const mine = serverLaunchSettings(reader({ 'server.command': ['/opt/lsp-agent', 'serve'] }, planted));
    assert.deepEqual(mine.command, ['/opt/lsp-agent', 'serve']);
    assert.equal(mine.pythonPath, '');
  });

  it('declares the launch settings with application scope', () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
      contributes: { configuration: { properties: Record<string, { scope?: string }> }[] | { properties: Record<string, { scope?: string }> } };
    };
    const sections = Array.isArray(pkg.contributes.configuration) ? pkg.contributes.configuration : [pkg.contributes.configuration];
    const properties = Object.assign({}, ...sections.map((c) => c.properties)) as Record<string, { scope?: string }>;
    for (const key of ['server.command', 'server.pythonPath']) {
      assert.equal(properties[`lspAgent.${key}`]?.scope, 'application', key);
    }
  });
});
