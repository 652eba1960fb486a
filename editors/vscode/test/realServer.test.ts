/**
 * The extension against the real `lsp-agent serve` of this repository (skipped when the
 * repository's `.venv` is not set up):
 *  1. found the way users' workspaces are searched (the folder's `.venv/bin/lsp-agent`), it takes
 *     the settings the extension sends: a bad value comes back as a warning naming the key;
 *  2. a whole job with a scripted model (`lspAgent.model.id = scripted:PATH`): Run task -> progress
 *     in the status bar -> the patch, with one annotation per hunk (`needsConfirmation: true`),
 *     opens the diff review (Accept / Review hunks… / Reject) and the status bar says "waiting for
 *     approval" -> Accept: `vscode.workspace.applyEdit` gets the edit without annotations; Review
 *     hunks: it gets every hunk to confirm (VS Code's Refactor Preview) -> the job ends with its
 *     answer; Reject: nothing is applied and the agent is told.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { sharedFakeVscode, type WorkspaceEdit } from './helpers/fakeVscode';
import { waitFor as waitForEvent } from './helpers/waitFor';

const fake = sharedFakeVscode();
const REPO = resolve(__dirname, '..', '..', '..', '..');
const SERVER = join(REPO, '.venv', process.platform === 'win32' ? 'Scripts' : 'bin', 'lsp-agent');

function waitFor<T>(what: string, probe: () => T | undefined | false): Promise<T> {
  return waitForEvent(what, probe, {
    explain: () => {
      const log = fake.logLines.slice(-30).join('\n');
      const messages = fake.messages.map((m) => `${m.kind}: ${m.text}`).join('\n');
      return `-- messages:\n${messages}\n-- log:\n${log}`;
    },
  });
}

describe('the extension against the real lsp-agent server', function () {
  this.timeout(120000); // whole jobs with a Python server
  let ext: typeof import('../src/extension');
  const context = { subscriptions: [] as { dispose(): unknown }[], extension: { id: 'lsp-agent.lsp-agent' } };
  const status = (): string => fake.statusItems.at(-1)?.text ?? '';

  before(async function () {
    if (!existsSync(SERVER)) this.skip();
    fake.workspaceFolders = [REPO];
    fake.messages.length = 0;
    fake.logLines.length = 0;
    // Nothing about how to start it: found in the workspace's .venv. One bad value to bounce.
    fake.config = { 'model.temperature': 5, 'phoenix.enabled': false, 'sandbox.backend': 'none' };
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    ext = require('../src/extension') as typeof import('../src/extension');
    await ext.activate(context as never);
  });

  after(async () => {
    if (!ext) return;
    await ext.deactivate();
    for (const d of context.subscriptions.splice(0)) d.dispose();
  });

  it('finds the server in the workspace .venv and starts it', async () => {
    await waitFor('the server to be up', () => status() === '$(hubot) Agent');
    assert.ok(
      fake.logLines.some((l) => l.includes(`Starting the server: ${SERVER} serve (found in workspace .venv)`)),
      fake.logLines.join('\n'),
    );
  });

  it('hands the settings to the server by their env-style keys', async () => {
    const warning = await waitFor('the server to reject MODEL_TEMPERATURE=5', () =>
      fake.messages.find((m) => /MODEL_TEMPERATURE/.test(m.text)),
    );
    assert.match(warning.text, /MODEL_TEMPERATURE='?5'?/);
  });

  describe('a job with a scripted model', () => {
    let dir: string;
    let script: string;
    let seen: string[];
    let sampler: NodeJS.Timeout;
    const original = (fake.module.workspace as { applyEdit: unknown }).applyEdit;

    before(async function () {
      if (!ext) this.skip();
      await ext.deactivate();
      for (const d of context.subscriptions.splice(0)) d.dispose();
      dir = mkdtempSync(join(tmpdir(), 'lsp-agent-e2e-'));
      const ws = join(dir, 'ws');
      mkdirSync(ws);
      writeFileSync(join(ws, 'app.py'), 'def add(a, b):\n    return a - b\n');
      script = join(dir, 'script.json');
      fake.workspaceFolders = [ws];
      fake.config = {
        'server.command': [SERVER, 'serve'],
        'model.id': `scripted:${script}`,
        'phoenix.enabled': false,
        'sandbox.backend': 'none',
      };
      seen = [];
      sampler = setInterval(() => {
        if (seen.at(-1) !== status()) seen.push(status());
      }, 2);
    });

    after(() => {
      clearInterval(sampler);
      (fake.module.workspace as { applyEdit: unknown }).applyEdit = original;
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    /** Run one scripted job; `choice` answers the review, and the preview (if any) applies. */
    async function job(choice: 'Accept' | 'Review hunks…' | 'Reject'): Promise<{ edit?: WorkspaceEdit; end: string }> {
      const decide = choice !== 'Reject';
      fake.logLines.length = 0;
      writeFileSync(
        script,
        JSON.stringify([
          { tool: 'propose_patch', arguments: { path: 'app.py', old: 'return a - b', new: 'return a + b' } },
          { tool: 'apply_patch', arguments: { patch_id: 'p1' } },
          { final_answer: decide ? 'fixed add' : 'left add alone' },
        ]),
      );
      let preview: WorkspaceEdit | undefined;
      let answer: (ok: boolean) => void = () => undefined;
      (fake.module.workspace as { applyEdit: unknown }).applyEdit = (edit: WorkspaceEdit) => {
        preview = edit;
        return new Promise<boolean>((r) => {
          answer = r;
        });
      };
      fake.messages.length = 0;
      fake.messageAnswers.length = 0;
      await ext.activate(context as never);
      await waitFor('the server to be up', () => status() === '$(hubot) Agent');
      fake.inputAnswers.push('fix add');
      await fake.commands.get('lspAgent.runTask')?.();
      await waitFor('the review', () => fake.diffTabs.length > 0);
      assert.equal(status(), '$(bell) Agent: waiting for approval');
      assert.deepEqual(fake.messages.at(-1)?.items, ['Accept', 'Review hunks…', 'Reject']);
      await fake.commands.get({ Accept: 'lspAgent.acceptPatch', 'Review hunks…': 'lspAgent.reviewPatch', Reject: 'lspAgent.rejectPatch' }[choice])?.();
      if (decide) {
        await waitFor('the edit', () => preview);
        answer(true);
      }
      const end = await waitFor('the job to end', () => fake.messages.find((m) => /\(job \d+\)/.test(m.text)));
      await waitFor('idle', () => status() === '$(hubot) Agent');
      await ext.deactivate();
      for (const d of context.subscriptions.splice(0)) d.dispose();
      return { edit: preview, end: end.text };
    }

    it('shows progress, then the diff review; Accept applies the whole patch without a preview', async () => {
      const { edit, end } = await job('Accept');
      assert.ok(seen.some((t) => /^\$\(sync~spin\) Agent: step \d+\/\d+/.test(t)), seen.join(' | '));
      assert.ok(edit);
      assert.match(edit.entries[0].uri, /\/ws\/app\.py$/);
      for (const [text, metadata] of edit.entries[0].edits) {
        assert.equal(metadata, undefined, `hunk still to confirm: ${JSON.stringify(text)}`);
      }
      assert.match(end, /fixed add/);
      assert.ok(fake.logLines.some((l) => /p1.*\[applied\]/.test(l)), fake.logLines.slice(-12).join('\n'));
    });

    it('Review hunks: the refactor preview with every hunk to confirm; approved', async () => {
      const { edit, end } = await job('Review hunks…');
      assert.ok(edit);
      assert.equal(edit.entries.length, 1);
      assert.match(edit.entries[0].uri, /\/ws\/app\.py$/);
      const hunks = edit.entries[0].edits;
      assert.ok(hunks.length >= 1);
      for (const [text, metadata] of hunks) {
        assert.equal(metadata?.needsConfirmation, true, `hunk without confirmation: ${JSON.stringify(text)}`);
        assert.match(metadata?.label ?? '', /app\.py/);
      }
      assert.match(end, /fixed add/);
      assert.ok(fake.logLines.some((l) => /p1.*\[applied\]/.test(l)), fake.logLines.slice(-12).join('\n'));
    });

    it('tells the agent when the patch is rejected, and applies nothing', async () => {
      const { edit, end } = await job('Reject');
      assert.equal(edit, undefined);
      assert.match(end, /left add alone/);
      assert.ok(fake.logLines.some((l) => /p1.*\[rejected\]/.test(l)), fake.logLines.slice(-12).join('\n'));
    });
  });
});
