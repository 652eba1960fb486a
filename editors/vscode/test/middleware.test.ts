import assert from 'node:assert/strict';
import type { ApplyWorkspaceEditParams, ConfigurationParams, Middleware } from 'vscode-languageclient';
import { createMiddleware, type MiddlewareHooks, NOTHING_APPLIED, type PatchChoice } from '../src/middleware';
import type { WorkDoneValue } from '../src/statusModel';

interface Recorder extends MiddlewareHooks {
  log: string[];
  progress: [string | number, WorkDoneValue][];
  jobs: (string | number)[];
  answer: string | undefined;
}

function hooks(): Recorder {
  const r: Recorder = {
    log: [],
    progress: [],
    jobs: [],
    answer: 'typed task',
    onProgress: (token, value) => {
      r.progress.push([token, value]);
    },
    approvalStarted: () => {
      r.log.push('approval started');
    },
    approvalEnded: () => {
      r.log.push('approval ended');
    },
    onJobStarted: (jobId) => {
      r.jobs.push(jobId);
    },
    askForTask: async () => {
      r.log.push('asked');
      return r.answer;
    },
    serverPayload: (scope) => ({ MODEL_ID: scope ? `for ${scope}` : 'openai/x', LOG_LEVEL: null }),
  };
  return r;
}

// The signatures want cancellation tokens the middleware never reads.
const token = undefined as never;
type Exec = NonNullable<Middleware['executeCommand']>;
type Apply = (params: ApplyWorkspaceEditParams, next: (p: ApplyWorkspaceEditParams) => Promise<unknown>) => Promise<unknown>;
type Configure = (params: ConfigurationParams, token: never, next: (p: ConfigurationParams, t: never) => unknown) => Promise<unknown>;

describe('middleware', () => {
  it('passes every progress value on unchanged after noting it', () => {
    const r = hooks();
    const m = createMiddleware(r);
    const passed: unknown[] = [];
    const value = { kind: 'report' as const, message: 'step 2 of 5' };
    m.handleWorkDoneProgress?.('tok', value, (t, v) => passed.push([t, v]));
    assert.deepEqual(r.progress, [['tok', value]]);
    assert.equal((passed[0] as unknown[])[1], value);
  });

  it('passes applyEdit params on as the same object, marking approval around it', async () => {
    const r = hooks();
    const apply = createMiddleware(r).workspace?.handleApplyEdit as unknown as Apply;
    const params: ApplyWorkspaceEditParams = {
      edit: { changeAnnotations: { h1: { label: 'a.py @@', needsConfirmation: true } }, documentChanges: [] },
    };
    const snapshot = JSON.parse(JSON.stringify(params));
    let received: ApplyWorkspaceEditParams | undefined;
    const result = await apply(params, async (p) => {
      r.log.push('next');
      received = p;
      return { applied: true };
    });
    assert.equal(received, params);
    assert.deepEqual(received, snapshot);
    assert.deepEqual(result, { applied: true });
    assert.deepEqual(r.log, ['approval started', 'next', 'approval ended']);
  });

  it('ends the approval state when applying fails', async () => {
    const r = hooks();
    const apply = createMiddleware(r).workspace?.handleApplyEdit as unknown as Apply;
    await assert.rejects(apply({ edit: {} }, async () => Promise.reject(new Error('boom'))), /boom/);
    assert.deepEqual(r.log, ['approval started', 'approval ended']);
  });

  it('answers workspace/configuration for lspAgent itself and leaves other sections to the client', async () => {
    const r = hooks();
    const configure = createMiddleware(r).workspace?.configuration as unknown as Configure;
    let nextCalls = 0;
    const next = (p: ConfigurationParams): unknown => {
      nextCalls += 1;
      return p.items.map((item) => `client:${item.section}`);
    };
    const ours = await configure({ items: [{ section: 'lspAgent' }, { section: 'lspAgent.model.id', scopeUri: 'file:///w' }] }, token, next);
    assert.deepEqual(ours, [{ MODEL_ID: 'openai/x', LOG_LEVEL: null }, 'for file:///w']);
    assert.equal(nextCalls, 0);
    const mixed = await configure({ items: [{ section: 'editor' }, { section: 'lspAgent.MODEL_ID' }] }, token, next);
    assert.deepEqual(mixed, ['client:editor', 'openai/x']);
    assert.equal(nextCalls, 1);
  });

  it('remembers the job id lspAgent.run returns', async () => {
    const r = hooks();
    const exec = createMiddleware(r).executeCommand as Exec;
    const args = [{ task: 'fix', uri: 'file:///a' }];
    const sent: unknown[][] = [];
    const result = await exec('lspAgent.run', args, async (_c, a) => {
      sent.push(a);
      return { jobId: 'j7' };
    });
    assert.deepEqual(result, { jobId: 'j7' });
    assert.equal(sent[0], args);
    assert.deepEqual(r.jobs, ['j7']);
    assert.deepEqual(r.log, []);
    await exec('lspAgent.run', args, async () => ({ jobId: 3, progressToken: 'lsp-agent/job/3' }));
    assert.deepEqual(r.jobs, ['j7', 3]);
  });

  it('asks for the task when a code action carries none (Agent: ask…)', async () => {
    const r = hooks();
    const exec = createMiddleware(r).executeCommand as Exec;
    const sent: unknown[][] = [];
    // lsp-agent's `Agent: ask…` action: {ask: true, uri, range} and no task.
    await exec('lspAgent.run', [{ ask: true, uri: 'file:///a', range: null }], async (_c, a) => {
      sent.push(a);
      return { jobId: 'j8' };
    });
    assert.deepEqual(sent, [[{ ask: true, uri: 'file:///a', range: null, task: 'typed task' }]]);
    assert.deepEqual(r.log, ['asked']);
  });

  it('sends nothing when the user dismisses the task box', async () => {
    const r = hooks();
    r.answer = undefined;
    const exec = createMiddleware(r).executeCommand as Exec;
    let called = false;
    const result = await exec('lspAgent.run', [{}], async () => {
      called = true;
      return {};
    });
    assert.equal(result, undefined);
    assert.equal(called, false);
  });

  it('leaves other commands alone', async () => {
    const r = hooks();
    const exec = createMiddleware(r).executeCommand as Exec;
    const result = await exec('lspAgent.approve', [{ patchId: 'p1' }], async (c, a) => ({ c, a }));
    assert.deepEqual(result, { c: 'lspAgent.approve', a: [{ patchId: 'p1' }] });
    assert.deepEqual(r.jobs, []);
  });

  describe('a patch that needs confirmation, with a review', () => {
    const annotated = (): ApplyWorkspaceEditParams => ({
      edit: {
        documentChanges: [
          {
            textDocument: { uri: 'file:///w/a.py', version: 1 },
            edits: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, newText: '#', annotationId: 'h1' }],
          },
        ],
        changeAnnotations: { h1: { label: 'a.py @@', needsConfirmation: true } },
      },
    });

    /** A review that answers `choices` in turn and logs each step; next() answers `results` in turn. */
    function setup(choices: PatchChoice[], results: { applied: boolean; failureReason?: string }[]) {
      const r = hooks();
      const asked: (string | undefined)[] = [];
      r.review = {
        choose: async (_params, again) => {
          asked.push(again);
          r.log.push(`choose:${choices[0]}`);
          return choices.shift() as PatchChoice;
        },
        close: async () => {
          r.log.push('close');
        },
      };
      const sent: ApplyWorkspaceEditParams[] = [];
      const apply = createMiddleware(r).workspace?.handleApplyEdit as unknown as Apply;
      const run = (params: ApplyWorkspaceEditParams) =>
        apply(params, async (p) => {
          sent.push(p);
          r.log.push('next');
          return results.shift();
        });
      return { r, asked, sent, run };
    }

    it('Accept applies the same edit without annotations, at once (no preview)', async () => {
      const { r, sent, run } = setup(['accept'], [{ applied: true }]);
      assert.deepEqual(await run(annotated()), { applied: true });
      assert.equal(sent.length, 1);
      assert.equal(sent[0].edit.changeAnnotations, undefined);
      assert.doesNotMatch(JSON.stringify(sent[0]), /annotationId|needsConfirmation/);
      assert.deepEqual(r.log, ['approval started', 'choose:accept', 'next', 'close', 'approval ended']);
    });

    it('Reject answers not applied and applies nothing', async () => {
      const { r, sent, run } = setup(['reject'], []);
      assert.deepEqual(await run(annotated()), { applied: false });
      assert.equal(sent.length, 0);
      assert.deepEqual(r.log, ['approval started', 'choose:reject', 'close', 'approval ended']);
    });

    it('Review hunks passes the annotated edit on untouched (the Refactor Preview)', async () => {
      const { sent, run } = setup(['review'], [{ applied: true }]);
      const params = annotated();
      assert.deepEqual(await run(params), { applied: true });
      assert.equal(sent[0], params);
    });

    it('a preview that applied nothing asks again, saying so, instead of reporting a rejection', async () => {
      const { r, asked, sent, run } = setup(['review', 'accept'], [{ applied: false }, { applied: true }]);
      assert.deepEqual(await run(annotated()), { applied: true });
      assert.deepEqual(asked, [undefined, NOTHING_APPLIED]);
      assert.equal(sent.length, 2);
      assert.ok(sent[0].edit.changeAnnotations, 'the review had the annotations');
      assert.equal(sent[1].edit.changeAnnotations, undefined, 'then Accept applied it whole');
      assert.deepEqual(r.log, ['approval started', 'choose:review', 'next', 'choose:accept', 'next', 'close', 'approval ended']);
    });

    it('the agent hears "rejected" after an empty preview only once the user rejects', async () => {
      const { asked, run } = setup(['review', 'review', 'reject'], [{ applied: false }, { applied: false }]);
      assert.deepEqual(await run(annotated()), { applied: false });
      assert.deepEqual(asked, [undefined, NOTHING_APPLIED, NOTHING_APPLIED]);
    });

    it("passes on the editor's failure as it is", async () => {
      const { r, run } = setup(['review'], [{ applied: false, failureReason: 'version mismatch' }]);
      assert.deepEqual(await run(annotated()), { applied: false, failureReason: 'version mismatch' });
      assert.ok(r.log.includes('close'));
    });

    it('leaves edits that need no confirmation to the client', async () => {
      const { r, sent, run } = setup([], [{ applied: true }]);
      const params: ApplyWorkspaceEditParams = { edit: { changes: {} } };
      assert.deepEqual(await run(params), { applied: true });
      assert.equal(sent[0], params);
      assert.deepEqual(r.log, ['approval started', 'next', 'approval ended']);
    });
  });
});
