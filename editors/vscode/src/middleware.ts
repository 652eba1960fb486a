/**
 * The language client's middleware: where the extension watches and shapes the traffic.
 *
 *  - `$/progress` (WorkDoneProgress) -> the status bar; passed on unchanged, so VS Code still
 *    shows the client's own progress.
 *  - `workspace/applyEdit` -> "waiting for approval" while the user decides. A patch whose change
 *    annotations ask for confirmation (`needsConfirmation`, one per hunk) goes to the `PatchReview`
 *    first (a diff view with Accept / Review hunks / Reject): Accept applies it at once (the same
 *    edit without the annotations), Review hunks passes the params on untouched (VS Code's
 *    Refactor Preview, hunk by hunk), Reject answers `applied: false`. When the preview applies
 *    nothing (no hunk ticked, or discarded) the user is asked again, told so: the agent hears
 *    "rejected" only from an explicit Reject. Other edits go on untouched.
 *  - `workspace/configuration` for section `lspAgent` -> the flat map of server keys.
 *  - `workspace/executeCommand lspAgent.run` (from a code action in the lightbulb) -> asks for the
 *    task when the action carries none (`Agent: ask…`), and remembers the returned job id.
 *  - `textDocument/inlineCompletion` -> asked only while completions are on (the status bar
 *    toggle); items without a range are anchored at the cursor (`completions.ts`).
 *
 * Type-only imports: this module loads (and is tested) without VS Code.
 */
import type { Range } from 'vscode';
import type { Middleware } from 'vscode-languageclient';
import type { ApplyWorkspaceEditParams, ApplyWorkspaceEditResult, ResponseError } from 'vscode-languageclient';
import { needsConfirmation, withoutConfirmation } from './annotatedEdit';
import { anchoredAtCursor } from './completions';
import { configurationAnswer, type ServerPayload } from './configuration';
import { type JobId, jobIdOf, RUN_COMMAND, runArgsNeedingTask } from './jobs';
import type { WorkDoneValue } from './statusModel';

export type PatchChoice = 'accept' | 'reject' | 'review';

/** Where the user decides on a patch that needs confirmation (VS Code: src/patchReview.ts). */
export interface PatchReview {
  /** Shows the patch and waits for the user's choice; `again` says why they are asked again. */
  choose(params: ApplyWorkspaceEditParams, again?: string): Promise<PatchChoice>;
  /** The decision on `params` is made: closes what choose() opened for it. */
  close(params: ApplyWorkspaceEditParams): Promise<void>;
}

export const NOTHING_APPLIED =
  'Nothing was applied: no change was ticked in the Refactor Preview, or it was discarded.';

export interface MiddlewareHooks {
  onProgress(token: string | number, value: WorkDoneValue): void;
  approvalStarted(): void;
  approvalEnded(): void;
  onJobStarted(jobId: JobId): void;
  /** Ask the user for a task; undefined when they cancel. */
  askForTask(): Promise<string | undefined>;
  /** The server keys for `workspace/configuration` (scope: a folder URI, if the server names one). */
  serverPayload(scopeUri?: string): ServerPayload;
  /** Without it, patches go straight to VS Code's Refactor Preview. */
  review?: PatchReview;
  /** Inline completions are on (`lspAgent.completion.enabled`); default: on. */
  completionsEnabled?(): boolean;
  /** An empty range at `position` (a `vscode.Range`), where an item without a range goes. */
  emptyRangeAt?(position: unknown): unknown;
}

type ApplyResult = ApplyWorkspaceEditResult | ResponseError<void>;

/** Accept / review hunks / reject, until an edit is applied or the user rejects it. */
async function reviewPatch(
  review: PatchReview,
  params: ApplyWorkspaceEditParams,
  apply: (p: ApplyWorkspaceEditParams) => Promise<ApplyResult>,
): Promise<ApplyResult> {
  let again: string | undefined;
  try {
    for (;;) {
      const choice = await review.choose(params, again);
      if (choice === 'accept') return await apply(withoutConfirmation(params));
      if (choice === 'reject') return { applied: false };
      const result = await apply(params);
      if (!('applied' in result) || result.applied || result.failureReason) return result;
      again = NOTHING_APPLIED;
    }
  } finally {
    await review.close(params);
  }
}

function isError(value: unknown): value is Error {
  return value instanceof Error;
}

export function createMiddleware(hooks: MiddlewareHooks): Middleware {
  return {
    handleWorkDoneProgress(token, params, next) {
      try {
        hooks.onProgress(token, params as WorkDoneValue);
      } finally {
        next(token, params);
      }
    },
    async executeCommand(command, args, next) {
      if (command !== RUN_COMMAND) return next(command, args);
      const incomplete = runArgsNeedingTask(args);
      let callArgs = args;
      if (incomplete !== undefined) {
        const task = await hooks.askForTask();
        if (task === undefined || !task.trim()) return undefined;
        callArgs = [{ ...incomplete, task: task.trim() }, ...args.slice(1)];
      }
      const result: unknown = await next(command, callArgs);
      const jobId = jobIdOf(result);
      if (jobId !== undefined) hooks.onJobStarted(jobId);
      return result;
    },
    async provideInlineCompletionItems(document, position, context, token, next) {
      if (hooks.completionsEnabled && !hooks.completionsEnabled()) return null;
      const result = await next(document, position, context, token);
      if (!hooks.emptyRangeAt) return result;
      return anchoredAtCursor(result, hooks.emptyRangeAt(position) as Range);
    },
    workspace: {
      async handleApplyEdit(params, next) {
        hooks.approvalStarted();
        try {
          // The client's `next` takes the params only (the signature type adds a token).
          const apply = next as unknown as (p: typeof params) => Promise<ApplyResult>;
          if (hooks.review && needsConfirmation(params.edit)) return await reviewPatch(hooks.review, params, apply);
          return await apply(params);
        } finally {
          hooks.approvalEnded();
        }
      },
      async configuration(params, token, next) {
        const ours = params.items.map((item) =>
          configurationAnswer(item.section, hooks.serverPayload(item.scopeUri ?? undefined)),
        );
        if (ours.every((answer) => answer !== undefined)) {
          return ours.map((answer) => answer?.value ?? null);
        }
        const theirs = await next(params, token);
        if (isError(theirs)) return theirs;
        return params.items.map((_item, i) => {
          const answer = ours[i];
          return answer !== undefined ? answer.value : (theirs as unknown[])[i];
        });
      },
    },
  };
}
