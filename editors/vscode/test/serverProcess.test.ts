import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describeStartFailure, ServerProcess, SpawnError } from '../src/serverProcess';

const DIE = join(__dirname, '..', '..', 'test', 'fixtures', 'dieWhileStarting.js');

describe('the server process', () => {
  it('rejects with a SpawnError when the program does not exist', async () => {
    await assert.rejects(ServerProcess.start('/nonexistent/lsp-agent', ['serve'], {}), (error: unknown) => {
      assert.ok(error instanceof SpawnError);
      assert.match(error.message, /ENOENT/);
      return true;
    });
  });

  it('reports the exit of a process that ran', async () => {
    const server = await ServerProcess.start(process.execPath, [DIE, 'exit-now'], {});
    assert.ok(server.pid);
    assert.deepEqual(await server.exitWithin(10000), { code: 7, signal: null });
    assert.deepEqual(server.exitStatus, { code: 7, signal: null });
  });

  it('waits no longer than asked for a process that keeps running, and stops it', async () => {
    const server = await ServerProcess.start(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {});
    assert.equal(await server.exitWithin(50), undefined);
    await server.stop(0);
    assert.deepEqual(server.exitStatus, { code: null, signal: 'SIGTERM' });
  });
});

describe('why the server did not start', () => {
  const description = '/usr/bin/python -m lsp_agent serve';

  it('a failed spawn: could not start, with the reason', () => {
    const error = new SpawnError('/x', Object.assign(new Error('spawn /x ENOENT'), { code: 'ENOENT' }));
    assert.equal(
      describeStartFailure({ description, error, spawned: false }),
      `LSP Agent: could not start the server (${description}): spawn /x ENOENT`,
    );
  });

  it('an exit while starting wins over whatever error the client saw first', () => {
    const exit = { code: 1, signal: null };
    const writeFailed = Object.assign(new Error('write EPIPE'), { code: -32099 });
    const disposed = Object.assign(new Error('Pending response rejected since connection got disposed'), { code: -32097 });
    for (const error of [undefined, writeFailed, disposed, new Error('Connection got disposed.')]) {
      const message = describeStartFailure({ description, error, spawned: true, exit });
      assert.match(message, /the server exited while starting \(exit code 1\), so it is not restarted/, String(error));
    }
    assert.match(
      describeStartFailure({ description, spawned: true, exit: { code: null, signal: 'SIGKILL' } }),
      /exited while starting \(killed by SIGKILL\)/,
    );
  });

  it("the server's own error answer to initialize", () => {
    const refused = Object.assign(new Error('unsupported client'), { code: -32603 });
    assert.equal(
      describeStartFailure({ description, error: refused, spawned: true, exit: { code: 0, signal: null } }),
      `LSP Agent: the server refused to start (${description}): unsupported client`,
    );
  });

  it('a live server whose connection failed', () => {
    assert.equal(
      describeStartFailure({ description, error: new Error('bad header'), spawned: true }),
      `LSP Agent: could not start the server (${description}): bad header`,
    );
  });
});
