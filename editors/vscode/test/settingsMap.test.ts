import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ALL_SETTINGS,
  CLIENT_SETTINGS,
  contributedConfiguration,
  fullKey,
  SERVER_SETTINGS,
  settingsMapDocument,
} from '../src/settingsMap';

const root = join(__dirname, '..', '..');
const readJson = (name: string): Record<string, unknown> => JSON.parse(readFileSync(join(root, name), 'utf8'));

describe('settings map', () => {
  it('package.json contributes exactly the generated configuration', () => {
    const pkg = readJson('package.json') as { contributes: { configuration: unknown } };
    assert.deepEqual(pkg.contributes.configuration, contributedConfiguration());
  });

  it('settings-map.json is the generated document', () => {
    assert.deepEqual(readJson('settings-map.json'), settingsMapDocument());
  });

  it('has unique VS Code keys and unique server keys', () => {
    const keys = ALL_SETTINGS.map(fullKey);
    assert.equal(new Set(keys).size, keys.length);
    const serverKeys = SERVER_SETTINGS.map((s) => s.serverKey);
    assert.equal(new Set(serverKeys).size, serverKeys.length);
    for (const key of serverKeys) assert.match(key, /^[A-Z][A-Z0-9_]*$/);
  });

  it('maps the settings the issue names', () => {
    const serverKeys = new Set(SERVER_SETTINGS.map((s) => s.serverKey));
    for (const key of [
      'MODEL_ID',
      'MODEL_API_BASE',
      'MODEL_NUM_CTX',
      'MODEL_TEMPERATURE',
      'MODEL_MAX_TOKENS',
      'MODEL_FALLBACKS',
      'AGENT_MAX_STEPS',
      'PHOENIX_ENABLED',
      'PHOENIX_ENDPOINT',
      'PHOENIX_PROJECT',
      'SANDBOX_BACKEND',
      'SANDBOX_TIMEOUT_S',
      'CHECK_COMMAND',
      'POLICY_FILE',
      'LOG_LEVEL',
    ]) {
      assert.ok(serverKeys.has(key), key);
    }
  });

  it('keeps every default valid for its own schema', () => {
    for (const s of ALL_SETTINGS) {
      const d = s.default;
      switch (s.type) {
        case 'string':
          assert.equal(typeof d, 'string', s.key);
          if (s.pattern) {
            assert.match(d as string, new RegExp(s.pattern), s.key);
          }
          break;
        case 'integer':
          assert.ok(Number.isInteger(d), s.key);
          break;
        case 'number':
          assert.equal(typeof d, 'number', s.key);
          break;
        case 'boolean':
          assert.equal(typeof d, 'boolean', s.key);
          break;
        case 'array':
          assert.ok(Array.isArray(d), s.key);
          break;
      }
      if (s.minimum !== undefined) assert.ok((d as number) >= s.minimum, s.key);
      if (s.maximum !== undefined) assert.ok((d as number) <= s.maximum, s.key);
      if (s.enum) assert.ok(s.enum.includes(d as string), s.key);
      if (s.enumDescriptions) assert.equal(s.enumDescriptions.length, s.enum?.length, s.key);
    }
  });

  it('keeps how the server starts in user settings only and away from the server', () => {
    for (const s of CLIENT_SETTINGS) assert.equal(s.serverKey, undefined);
    const command = CLIENT_SETTINGS.find((s) => s.key === 'server.command');
    assert.equal(command?.scope, 'application');
    assert.equal(CLIENT_SETTINGS.find((s) => s.key === 'server.pythonPath')?.scope, 'application');
  });

  it('declares every command it registers, with the palette titles of the issue', () => {
    const pkg = readJson('package.json') as {
      contributes: { commands: { command: string; title: string; category: string }[] };
    };
    const titles = Object.fromEntries(pkg.contributes.commands.map((c) => [c.command, `${c.category}: ${c.title}`]));
    assert.equal(titles['lspAgent.runTask'], 'LSP Agent: Run task…');
    assert.equal(titles['lspAgent.cancelTask'], 'LSP Agent: Cancel');
    assert.equal(titles['lspAgent.showStatus'], 'LSP Agent: Show status');
    assert.equal(titles['lspAgent.openPhoenix'], 'LSP Agent: Open trace in Phoenix');
    assert.equal(titles['lspAgent.restartServer'], 'LSP Agent: Restart server');
    assert.equal(titles['lspAgent.acceptPatch'], 'LSP Agent: Accept patch');
    assert.equal(titles['lspAgent.reviewPatch'], 'LSP Agent: Review patch hunks…');
    assert.equal(titles['lspAgent.rejectPatch'], 'LSP Agent: Reject patch');
    const source = ['extension.ts', 'patchReview.ts'].map((f) => readFileSync(join(root, 'src', f), 'utf8')).join('\n');
    const registered = [...source.matchAll(/registerCommand\('([^']+)'/g)].map((m) => m[1]).sort();
    assert.deepEqual(registered, Object.keys(titles).sort());
    // The server's own commands are registered by the language client: no clash.
    for (const id of registered) {
      assert.ok(!['lspAgent.run', 'lspAgent.cancel', 'lspAgent.status', 'lspAgent.approve', 'lspAgent.reject'].includes(id));
    }
  });

  it('asks for a VS Code version the language client supports and @types/vscode matches', () => {
    const pkg = readJson('package.json') as {
      engines: { vscode: string };
      devDependencies: Record<string, string>;
    };
    const client = JSON.parse(
      readFileSync(join(root, 'node_modules', 'vscode-languageclient', 'package.json'), 'utf8'),
    ) as { engines: { vscode: string } };
    assert.equal(pkg.engines.vscode, client.engines.vscode);
    assert.equal(`^${pkg.devDependencies['@types/vscode']}`, pkg.engines.vscode);
  });
});
