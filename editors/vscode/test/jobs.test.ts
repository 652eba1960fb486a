import assert from 'node:assert/strict';
import {
  activeJobsIn,
  buildRunArgs,
  chooseCancelTarget,
  jobIdOf,
  jobOfMessage,
  runArgsNeedingTask,
  summariseStatus,
  undoableFiles,
  undoArgs,
} from '../src/jobs';

const RANGE = { start: { line: 2, character: 0 }, end: { line: 4, character: 7 } };

describe('jobs', () => {
  it('builds lspAgent.run arguments with and without an editor', () => {
    assert.deepEqual(buildRunArgs('  add tests ', { uri: 'file:///a.py', range: RANGE }), {
      task: 'add tests',
      uri: 'file:///a.py',
      range: RANGE,
    });
    assert.deepEqual(buildRunArgs('explain'), { task: 'explain' });
  });

  it('reads the job id from the run result', () => {
    assert.equal(jobIdOf({ jobId: 'j1' }), 'j1');
    assert.equal(jobIdOf({ job_id: 'j2' }), 'j2');
    assert.equal(jobIdOf({ jobId: 3 }), 3, 'numbers stay numbers: the server wants its own id back');
    assert.equal(jobIdOf('j4'), 'j4');
    assert.equal(jobIdOf(null), undefined);
    assert.equal(jobIdOf({}), undefined);
  });

  it('knows when a code action came without a task', () => {
    assert.deepEqual(runArgsNeedingTask([{ uri: 'file:///a', range: RANGE }]), { uri: 'file:///a', range: RANGE });
    assert.deepEqual(runArgsNeedingTask([{ task: ' ', uri: 'u' }]), { task: ' ', uri: 'u' });
    assert.deepEqual(runArgsNeedingTask([]), {});
    assert.equal(runArgsNeedingTask([{ task: 'fix it' }]), undefined);
    assert.equal(runArgsNeedingTask(['odd']), undefined);
  });

  it('finds jobs under way in a status result', () => {
    const status = {
      jobs: [
        { jobId: 'j1', status: 'answered' },
        { jobId: 'j2', state: 'running' },
        { id: 'j3', status: 'waiting_for_approval' },
      ],
    };
    assert.deepEqual(activeJobsIn(status), ['j2', 'j3']);
    assert.deepEqual(activeJobsIn({ job: { jobId: 'x', status: 'RUNNING' } }), ['x']);
    // lsp-agent's own shape: {job, jobs, pendingApprovals, lastJob}, integer ids.
    const real = {
      job: { jobId: 2, state: 'running', step: 3, maxSteps: 25 },
      jobs: [{ jobId: 2, state: 'running' }],
      pendingApprovals: [{ approvalId: 'a1', jobId: 2 }],
      lastJob: { jobId: 1, state: 'finished', status: 'answered', answer: 'done' },
    };
    assert.deepEqual(activeJobsIn(real), [2]);
    assert.deepEqual(activeJobsIn('idle'), []);
  });

  it('chooses what Cancel stops', () => {
    const status = { jobs: [{ jobId: 'j1', status: 'running' }, { jobId: 'j2', status: 'running' }] };
    assert.deepEqual(chooseCancelTarget({ status, lastJobId: 'j1', activeTokens: [] }), { kind: 'job', jobId: 'j1' });
    assert.deepEqual(chooseCancelTarget({ status, lastJobId: 'old', activeTokens: [] }), { kind: 'job', jobId: 'j2' });
    assert.deepEqual(chooseCancelTarget({ status: {}, lastJobId: 'j9', activeTokens: ['t'] }), { kind: 'job', jobId: 'j9' });
    assert.deepEqual(chooseCancelTarget({ activeTokens: ['t', 4] }), { kind: 'progress', tokens: ['t', 4] });
    assert.deepEqual(chooseCancelTarget({ status: {}, lastJobId: 'j9', activeTokens: [] }), { kind: 'none' });
    assert.deepEqual(chooseCancelTarget({ status: { jobs: [{ jobId: 2, state: 'running' }] }, lastJobId: 2, activeTokens: [] }), {
      kind: 'job',
      jobId: 2,
    });
  });

  it('summarises the status in one line', () => {
    assert.equal(
      summariseStatus({ status: { model: 'openai/x', jobs: [{ jobId: 'j2', status: 'running' }] }, statusText: 'idle.' }),
      'LSP Agent: idle. · 1 job(s) under way (j2) · model openai/x',
    );
    assert.equal(summariseStatus({ status: null, statusText: 'idle.' }), 'LSP Agent: idle. · no job running');
    assert.equal(
      summariseStatus({
        status: { job: null, jobs: [], pendingApprovals: [], lastJob: { jobId: 1, state: 'finished', status: 'answered', answer: 'Added 2 tests.' } },
        statusText: 'idle.',
      }),
      'LSP Agent: idle. · no job running · last job 1 answered: Added 2 tests.',
    );
    assert.equal(
      summariseStatus({ status: { jobs: [{ jobId: 4, state: 'running' }], pendingApprovals: [{ approvalId: 'a1' }] }, statusText: 'x' }),
      'LSP Agent: x · 1 job(s) under way (4) · 1 approval(s) pending',
    );
  });

  it("finds the job a server message ends, and what it changed that can be undone", () => {
    assert.equal(jobOfMessage('lsp-agent (job 3): fixed the test'), 3);
    assert.equal(jobOfMessage('lsp-agent (job 12) failed: model error'), 12);
    assert.equal(jobOfMessage('lsp-agent: undid job 3 (fix): restores a.py'), undefined);
    const status = { lastJob: { jobId: 3, changedFiles: ['a.py', 'b.py'], undone: false } };
    assert.deepEqual(undoableFiles(status, 3), ['a.py', 'b.py']);
    assert.deepEqual(undoableFiles(status, 4), [], 'another job: no Undo on this message');
    assert.deepEqual(undoableFiles({ lastJob: { ...status.lastJob, undone: true } }, 3), []);
    assert.deepEqual(undoableFiles({ lastJob: { jobId: 3, changedFiles: [] } }, 3), []);
    assert.deepEqual(undoableFiles(undefined, 3), []);
    assert.deepEqual(undoArgs(), []);
    assert.deepEqual(undoArgs(3), [{ jobId: 3 }]);
  });
});
