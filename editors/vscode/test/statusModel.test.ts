import assert from 'node:assert/strict';
import { parseProgress, StatusModel } from '../src/statusModel';

describe('progress text', () => {
  it("reads lsp-agent's own format", () => {
    assert.deepEqual(parseProgress('step 2/25 · read_file · reading app.py'), { step: 2, maxSteps: 25, tool: 'read_file', approval: false });
  });

  it('reads the step in the usual spellings', () => {
    assert.deepEqual(parseProgress('step 3 of 25: read_file src/a.py'), { step: 3, maxSteps: 25, tool: 'read_file', approval: false });
    assert.equal(parseProgress('Step 4/25 · rg_search').step, 4);
    assert.equal(parseProgress('[7/25] git_diff').maxSteps, 25);
    assert.equal(parseProgress('12/30').step, 12);
    assert.equal(parseProgress('thinking').step, undefined);
    assert.equal(parseProgress(undefined, 'Agent: step 2 of 9').step, 2);
  });

  it('names the longest matching tool', () => {
    assert.equal(parseProgress('step 1 of 5 read_file_snippet(x)').tool, 'read_file_snippet');
    assert.equal(parseProgress('calling propose_patch_unified').tool, 'propose_patch_unified');
    assert.equal(parseProgress('my_read_file_helper').tool, undefined);
  });

  it('spots a wait for approval', () => {
    assert.ok(parseProgress('step 5 of 25: apply_patch p1 — waiting for approval').approval);
    assert.ok(parseProgress('waiting for approval a1: apply p1 to app.py').approval);
    assert.ok(!parseProgress('step 5 of 25: propose_patch').approval);
  });

  it('reads no tool or approval from the title (the task text)', () => {
    const parsed = parseProgress('step 1/25', 'lsp-agent: approve the read_file change');
    assert.equal(parsed.approval, false);
    assert.equal(parsed.tool, undefined);
    assert.equal(parsed.step, 1);
  });
});

describe('status bar state', () => {
  it('goes stopped -> starting -> idle', () => {
    const m = new StatusModel();
    assert.equal(m.view().kind, 'stopped');
    m.setServer('starting');
    assert.equal(m.view().kind, 'starting');
    m.setServer('running');
    assert.equal(m.view().kind, 'idle');
    assert.equal(m.view().text, '$(hubot) Agent');
  });

  it('shows running with step n of m and the tool, then idle with the last job', () => {
    const m = new StatusModel();
    m.setServer('running');
    m.progress('tok1', { kind: 'begin', title: 'Agent: add tests', cancellable: true });
    assert.equal(m.view().kind, 'running');
    assert.equal(m.view().text, '$(sync~spin) Agent: running');
    m.progress('tok1', { kind: 'report', message: 'step 3 of 25: read_file src/app.py' });
    assert.equal(m.view().text, '$(sync~spin) Agent: step 3/25 · read_file');
    assert.match(m.view().tooltip, /add tests — step 3 of 25/);
    m.progress('tok1', { kind: 'report', percentage: 20 });
    assert.equal(m.view().text, '$(sync~spin) Agent: step 3/25 · read_file', 'a bare percentage keeps the step');
    m.progress('tok1', { kind: 'report', message: 'step 4 of 25: thinking' });
    assert.equal(m.view().text, '$(sync~spin) Agent: step 4/25');
    m.progress('tok1', { kind: 'end', message: 'done' });
    assert.equal(m.view().kind, 'idle');
    assert.match(m.view().tooltip, /Last job: Agent: add tests: done/);
  });

  it('falls back to the percentage when there is no step', () => {
    const m = new StatusModel();
    m.setServer('running');
    m.progress(7, { kind: 'begin', title: 'Agent', message: 'starting', percentage: 0 });
    assert.equal(m.view().text, '$(sync~spin) Agent: starting');
    m.progress(7, { kind: 'report', message: 'a message too long to fit the status bar', percentage: 42.4 });
    assert.equal(m.view().text, '$(sync~spin) Agent: 42%');
    assert.deepEqual(m.activeTokens(), [7]);
  });

  it('shows waiting for approval from a progress message and from an open preview', () => {
    const m = new StatusModel();
    m.setServer('running');
    m.progress('t', { kind: 'begin', title: 'Agent' });
    m.progress('t', { kind: 'report', message: 'step 6 of 25: apply_patch p1: waiting for approval' });
    assert.equal(m.view().kind, 'approval');
    assert.equal(m.view().background, 'statusBarItem.warningBackground');
    m.progress('t', { kind: 'report', message: 'step 7 of 25: run_tests' });
    assert.equal(m.view().kind, 'running');
    m.approvalStarted();
    assert.equal(m.view().kind, 'approval');
    m.approvalEnded();
    assert.equal(m.view().kind, 'running');
    m.approvalEnded();
    m.approvalStarted();
    assert.equal(m.view().kind, 'approval', 'extra ends never go below zero');
  });

  it('shows the newest of several jobs and counts the others', () => {
    const m = new StatusModel();
    m.setServer('running');
    m.progress('a', { kind: 'begin', title: 'A', message: 'step 1 of 5' });
    m.progress('b', { kind: 'begin', title: 'B', message: 'step 2 of 9' });
    assert.equal(m.view().text, '$(sync~spin) Agent: step 2/9 (+1)');
    m.progress('a', { kind: 'report', message: 'step 3 of 5' });
    assert.equal(m.view().text, '$(sync~spin) Agent: step 3/5 (+1)');
    m.progress('a', { kind: 'end' });
    assert.equal(m.view().text, '$(sync~spin) Agent: step 2/9');
  });

  it('forgets jobs and approvals when the server stops, and says when it is missing', () => {
    const m = new StatusModel();
    m.setServer('running');
    m.progress('t', { kind: 'begin', title: 'x' });
    m.approvalStarted();
    m.setServer('stopped');
    assert.equal(m.view().kind, 'stopped');
    m.setServer('running');
    assert.equal(m.view().kind, 'idle');
    assert.deepEqual(m.activeTokens(), []);
    m.setServer('missing');
    assert.equal(m.view().kind, 'missing');
    assert.equal(m.view().background, 'statusBarItem.errorBackground');
  });
});
