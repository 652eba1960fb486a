/**
 * Jobs as the client sees them: the arguments of `lspAgent.run`, the `{jobId}` it returns, what
 * `Cancel` targets, and a readable summary of `lspAgent.status`.
 */

export interface LspPosition {
  readonly line: number;
  readonly character: number;
}

export interface LspRange {
  readonly start: LspPosition;
  readonly end: LspPosition;
}

/** The one object argument of `lspAgent.run`. */
export interface RunArgs {
  task: string;
  uri?: string;
  range?: LspRange;
}

export const RUN_COMMAND = 'lspAgent.run';
export const CANCEL_COMMAND = 'lspAgent.cancel';
export const STATUS_COMMAND = 'lspAgent.status';
export const APPROVE_COMMAND = 'lspAgent.approve';
export const REJECT_COMMAND = 'lspAgent.reject';
export const UNDO_COMMAND = 'lspAgent.undo';

/** The button on a job's done message that puts back what the job wrote. */
export const UNDO = 'Undo';

/** The job a server message ends (`lsp-agent (job 3): …`), or undefined for other messages. */
export function jobOfMessage(message: string): number | undefined {
  const match = /^lsp-agent \(job (\d+)\)/.exec(message);
  return match ? Number(match[1]) : undefined;
}

/** The files job `jobId` changed and that are not undone yet, from `lspAgent.status`. */
export function undoableFiles(status: unknown, jobId: JobId): string[] {
  if (!status || typeof status !== 'object') return [];
  const last = (status as Record<string, unknown>).lastJob;
  if (!last || typeof last !== 'object') return [];
  const job = last as Record<string, unknown>;
  if (jobIdOf(job) !== jobId || job.undone === true || !Array.isArray(job.changedFiles)) return [];
  return job.changedFiles.filter((f): f is string => typeof f === 'string');
}

/** `lspAgent.undo`'s arguments: a job, or none (the server's last job). */
export function undoArgs(jobId?: JobId): unknown[] {
  return jobId === undefined ? [] : [{ jobId }];
}

/** `lspAgent.run` arguments from a task and (if any) the active editor's document and selection. */
export function buildRunArgs(task: string, editor?: { uri: string; range?: LspRange }): RunArgs {
  const args: RunArgs = { task: task.trim() };
  if (editor) {
    args.uri = editor.uri;
    if (editor.range) args.range = editor.range;
  }
  return args;
}

/** A job id as the server gave it (lsp-agent uses integers); sent back unchanged. */
export type JobId = string | number;

/** The job id in `lspAgent.run`'s result: `{jobId}` (also `{job_id}`, or a bare id). */
export function jobIdOf(result: unknown): JobId | undefined {
  if (typeof result === 'string' && result) return result;
  if (typeof result === 'number' && Number.isFinite(result)) return result;
  if (result && typeof result === 'object' && !Array.isArray(result)) {
    const record = result as Record<string, unknown>;
    for (const key of ['jobId', 'job_id', 'id']) {
      const v = record[key];
      if (typeof v === 'string' && v) return v;
      if (typeof v === 'number' && Number.isFinite(v)) return v;
    }
  }
  return undefined;
}

/**
 * A code action's `lspAgent.run` without a task (`Agent: ask…`) needs the user to type one.
 * Returns the object argument to complete, or undefined when the arguments already have a task.
 */
export function runArgsNeedingTask(args: readonly unknown[]): Record<string, unknown> | undefined {
  const first = args[0];
  if (first === undefined || first === null) return {};
  if (typeof first !== 'object' || Array.isArray(first)) return undefined;
  const record = first as Record<string, unknown>;
  const task = record.task;
  return typeof task === 'string' && task.trim() ? undefined : record;
}

const ACTIVE = new Set(['running', 'queued', 'pending', 'waiting', 'started', 'starting', 'active', 'approval', 'waiting_for_approval']);

/** Jobs still under way in a `lspAgent.status` result, newest last. */
export function activeJobsIn(status: unknown): JobId[] {
  const found: JobId[] = [];
  const visit = (value: unknown, depth: number): void => {
    if (depth > 4 || value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      value.forEach((v) => visit(v, depth + 1));
      return;
    }
    const record = value as Record<string, unknown>;
    const id = jobIdOf(record);
    const state = record.state ?? record.status;
    if (id !== undefined && typeof state === 'string' && ACTIVE.has(state.toLowerCase())) found.push(id);
    for (const v of Object.values(record)) visit(v, depth + 1);
  };
  visit(status, 0);
  return [...new Set(found)];
}

export type CancelTarget =
  | { kind: 'job'; jobId: JobId }
  | { kind: 'progress'; tokens: (string | number)[] }
  | { kind: 'none' };

/**
 * What `LSP Agent: Cancel` stops: a job the server reports as under way (the newest), else the
 * job this window started last while progress is open, else the open progress itself
 * (`window/workDoneProgress/cancel`), else nothing.
 */
export function chooseCancelTarget(input: {
  status?: unknown;
  lastJobId?: JobId;
  activeTokens: readonly (string | number)[];
}): CancelTarget {
  const active = input.status === undefined ? [] : activeJobsIn(input.status);
  if (active.length > 0) {
    const mine = input.lastJobId !== undefined && active.includes(input.lastJobId) ? input.lastJobId : active.at(-1);
    return { kind: 'job', jobId: mine as JobId };
  }
  if (input.activeTokens.length > 0) {
    if (input.lastJobId !== undefined) return { kind: 'job', jobId: input.lastJobId };
    return { kind: 'progress', tokens: [...input.activeTokens] };
  }
  return { kind: 'none' };
}

/** A one-line summary of `lspAgent.status` plus the client's side, for a notification. */
export function summariseStatus(input: {
  status: unknown;
  serverDescription?: string;
  statusText: string;
}): string {
  const active = activeJobsIn(input.status);
  const jobs = active.length === 0 ? 'no job running' : `${active.length} job(s) under way (${active.join(', ')})`;
  const parts = [`LSP Agent: ${input.statusText}`, jobs];
  const record = input.status && typeof input.status === 'object' ? (input.status as Record<string, unknown>) : {};
  const pending = Array.isArray(record.pendingApprovals) ? record.pendingApprovals.length : 0;
  if (pending > 0) parts.push(`${pending} approval(s) pending`);
  const last = record.lastJob && typeof record.lastJob === 'object' ? (record.lastJob as Record<string, unknown>) : undefined;
  if (active.length === 0 && last) {
    const outcome = [last.status, last.answer || last.error].filter((v) => typeof v === 'string' && v).join(': ');
    parts.push(`last job ${String(last.jobId ?? '?')}${outcome ? ` ${outcome}` : ''}`.slice(0, 200));
  }
  const model = findString(input.status, ['model', 'modelId', 'model_id']);
  if (model) parts.push(`model ${model}`);
  return parts.join(' · ');
}

export function findString(value: unknown, keys: readonly string[], depth = 0): string | undefined {
  if (depth > 3 || value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  for (const key of keys) {
    const v = record[key];
    if (typeof v === 'string' && v) return v;
  }
  for (const v of Object.values(record)) {
    const found = findString(v, keys, depth + 1);
    if (found) return found;
  }
  return undefined;
}
