/**
 * The language client's middleware: where the extension watches and shapes the traffic.
 *
 *  - `$/progress` (WorkDoneProgress) -> the status bar; passed on unchanged, so VS Code still
 *    shows the client's own progress.
 *  - `workspace/applyEdit` -> "waiting for approval" while VS Code's refactor preview is open. The
 *    params go on untouched: the change annotations with `needsConfirmation: true` (one per hunk)
 *    are what makes VS Code show the preview.
 *  - `workspace/configuration` for section `lspAgent` -> the flat map of server keys.
 *  - `workspace/executeCommand lspAgent.run` (from a code action in the lightbulb) -> asks for the
 *    task when the action carries none (`Agent: ask…`), and remembers the returned job id.
 *
 * Type-only imports: this module loads (and is tested) without VS Code.
 */
import type { Middleware } from 'vscode-languageclient';
import { configurationAnswer, type ServerPayload } from './configuration';
import { type JobId, jobIdOf, RUN_COMMAND, runArgsNeedingTask } from './jobs';
import type { WorkDoneValue } from './statusModel';

export interface MiddlewareHooks {
  onProgress(token: string | number, value: WorkDoneValue): void;
  approvalStarted(): void;
  approvalEnded(): void;
  onJobStarted(jobId: JobId): void;
  /** Ask the user for a task; undefined when they cancel. */
  askForTask(): Promise<string | undefined>;
  /** The server keys for `workspace/configuration` (scope: a folder URI, if the server names one). */
  serverPayload(scopeUri?: string): ServerPayload;
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
    workspace: {
      async handleApplyEdit(params, next) {
        hooks.approvalStarted();
        try {
          // The client's `next` takes the params only (the signature type adds a token).
          const apply = next as unknown as (p: typeof params) => ReturnType<typeof next>;
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
