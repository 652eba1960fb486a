/**
 * The shipped artefact: the esbuild bundle (production build, as in the .vsix) loads with only
 * `vscode` external, activates, starts a server and stops it again.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sharedFakeVscode } from './helpers/fakeVscode';
import { waitFor } from './helpers/waitFor';

const fake = sharedFakeVscode();
const ROOT = join(__dirname, '..', '..');
const FAKE_SERVER = join(ROOT, 'test', 'fixtures', 'fakeServer.js');

describe('the production bundle', function () {
  let dir: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'lsp-agent-bundle-'));
    execFileSync(process.execPath, ['scripts/build.mjs', '--production', `--outfile=${join(dir, 'extension.js')}`], {
      cwd: ROOT,
      stdio: 'pipe',
    });
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  it('needs nothing but vscode at run time', () => {
    const code = readFileSync(join(dir, 'extension.js'), 'utf8');
    const required = new Set([...code.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]));
    const outside = [...required].filter((name) => !name.startsWith('node:') && !isBuiltin(name));
    assert.deepEqual(outside, ['vscode']);
  });

  it('activates, starts the server and deactivates', async () => {
    const logFile = join(dir, 'received.jsonl');
    fake.workspaceFolders = [dir];
    fake.config = { 'server.command': [process.execPath, FAKE_SERVER, logFile] };
    fake.statusItems.length = 0;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const bundle = require(join(dir, 'extension.js')) as typeof import('../src/extension');
    const context = { subscriptions: [] as { dispose(): unknown }[], extension: { id: 'lsp-agent.lsp-agent' } };
    await bundle.activate(context as never);
    await waitFor('the server to be up', () => fake.statusItems.at(-1)?.text === '$(hubot) Agent', {
      explain: () => `status: ${fake.statusItems.at(-1)?.text}`,
    });
    await bundle.deactivate();
    for (const d of context.subscriptions) d.dispose();
    const methods = readFileSync(logFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { method?: string }).method);
    assert.deepEqual(methods.slice(0, 2), ['initialize', 'initialized']);
    assert.ok(methods.includes('shutdown'));
  });
});

function isBuiltin(name: string): boolean {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('node:module') as { builtinModules: string[] }).builtinModules.includes(name);
}
