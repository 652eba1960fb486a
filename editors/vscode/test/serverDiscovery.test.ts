import assert from 'node:assert/strict';
import { candidatePaths, type DiscoveryInput, discoverServer, expandVariables } from '../src/serverDiscovery';

function input(overrides: Partial<DiscoveryInput> & { files?: string[] } = {}): DiscoveryInput {
  const files = new Set(overrides.files ?? []);
  return {
    command: [],
    pythonPath: '',
    workspaceFolders: ['/home/u/proj'],
    env: { PATH: '/usr/local/bin:/usr/bin' },
    platform: 'linux',
    homedir: '/home/u',
    isExecutable: (p) => files.has(p),
    ...overrides,
  };
}

describe('finding the server', () => {
  it('uses lspAgent.server.command as given, with variables expanded', () => {
    const found = discoverServer(
      input({ command: ['uvx', '--from', '${workspaceFolder}', 'lsp-agent', 'serve'], files: ['/home/u/proj/.venv/bin/lsp-agent'] }),
    );
    assert.ok(found.ok);
    assert.equal(found.command, 'uvx');
    assert.deepEqual(found.args, ['--from', '/home/u/proj', 'lsp-agent', 'serve']);
    assert.equal(found.source, 'command setting');
  });

  it('runs `python -m lsp_agent serve` with lspAgent.server.pythonPath', () => {
    const found = discoverServer(input({ pythonPath: '~/venvs/agent/bin/python', files: ['/usr/bin/lsp-agent'] }));
    assert.ok(found.ok);
    assert.equal(found.command, '/home/u/venvs/agent/bin/python');
    assert.deepEqual(found.args, ['-m', 'lsp_agent', 'serve']);
    assert.equal(found.source, 'pythonPath setting');
  });

  it('prefers the workspace .venv over PATH', () => {
    const found = discoverServer(input({ files: ['/home/u/proj/.venv/bin/lsp-agent', '/usr/bin/lsp-agent'] }));
    assert.ok(found.ok);
    assert.equal(found.command, '/home/u/proj/.venv/bin/lsp-agent');
    assert.deepEqual(found.args, ['serve']);
    assert.equal(found.source, 'workspace .venv');
  });

  it('looks in every workspace folder, first folder first', () => {
    const found = discoverServer(
      input({ workspaceFolders: ['/a', '/b'], files: ['/b/.venv/bin/lsp-agent'] }),
    );
    assert.ok(found.ok);
    assert.equal(found.command, '/b/.venv/bin/lsp-agent');
  });

  it('uses an activated virtual environment, then PATH', () => {
    const venv = discoverServer(
      input({ env: { PATH: '/usr/bin', VIRTUAL_ENV: '/opt/venv' }, files: ['/opt/venv/bin/lsp-agent', '/usr/bin/lsp-agent'] }),
    );
    assert.ok(venv.ok);
    assert.equal(venv.source, 'VIRTUAL_ENV');
    const onPath = discoverServer(input({ files: ['/usr/bin/lsp-agent'] }));
    assert.ok(onPath.ok);
    assert.equal(onPath.command, '/usr/bin/lsp-agent');
    assert.equal(onPath.source, 'PATH');
  });

  it('finds pipx / uv tool installs in ~/.local/bin even when PATH lacks it', () => {
    const found = discoverServer(input({ files: ['/home/u/.local/bin/lsp-agent'] }));
    assert.ok(found.ok);
    assert.equal(found.source, 'tool bin');
    const custom = discoverServer(input({ env: { PATH: '', UV_TOOL_BIN_DIR: '/tools/bin' }, files: ['/tools/bin/lsp-agent'] }));
    assert.ok(custom.ok);
    assert.equal(custom.command, '/tools/bin/lsp-agent');
  });

  it('uses Windows paths on Windows', () => {
    const found = discoverServer(
      input({
        platform: 'win32',
        workspaceFolders: ['C:\\src\\proj'],
        homedir: 'C:\\Users\\u',
        env: { Path: 'C:\\Windows;C:\\Tools' },
        files: ['C:\\Tools\\lsp-agent.exe'],
      }),
    );
    assert.ok(found.ok);
    assert.equal(found.command, 'C:\\Tools\\lsp-agent.exe');
    const paths = candidatePaths(input({ platform: 'win32', workspaceFolders: ['C:\\src\\proj'], homedir: 'C:\\Users\\u', env: {} }));
    assert.equal(paths[0].path, 'C:\\src\\proj\\.venv\\Scripts\\lsp-agent.exe');
    assert.ok(paths.some((p) => p.path === 'C:\\Users\\u\\.local\\bin\\lsp-agent.exe'));
  });

  it('says where it looked when nothing is found', () => {
    const missing = discoverServer(input({ env: { PATH: '/usr/bin:/home/u/.local/bin' } }));
    assert.ok(!missing.ok);
    assert.deepEqual(missing.tried, ['/home/u/proj/.venv/bin/lsp-agent', '/usr/bin/lsp-agent', '/home/u/.local/bin/lsp-agent']);
    assert.match(missing.message, /lspAgent\.server\.command/);
  });

  it('ignores an all-blank command setting', () => {
    const found = discoverServer(input({ command: [' ', ''], files: ['/usr/bin/lsp-agent'] }));
    assert.ok(found.ok);
    assert.equal(found.source, 'PATH');
  });

  it('expands ${workspaceFolder}, ${userHome}, ${env:X} and ~', () => {
    const ctx = { workspaceFolders: ['/w'], env: { X: 'ex' }, homedir: '/h' };
    assert.equal(expandVariables('${workspaceFolder}/.venv/bin/python', ctx), '/w/.venv/bin/python');
    assert.equal(expandVariables('${userHome}/a:${env:X}:${env:NOPE}', ctx), '/h/a:ex:');
    assert.equal(expandVariables('~/bin/x', ctx), '/h/bin/x');
    assert.equal(expandVariables('a~b', ctx), 'a~b');
  });
});
