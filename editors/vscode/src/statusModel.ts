/**
 * The status bar item's state: idle / running (step n of m) / waiting for approval, driven by the
 * server's `$/progress` (WorkDoneProgress begin/report/end), by pending `workspace/applyEdit`
 * requests (VS Code's refactor preview is open) and by the client's state.
 *
 * Progress text is parsed leniently: `step 3 of 25`, `step 3/25` or a leading `3/25` give the
 * step; the first known tool name gives the tool; a message mentioning approval means the agent
 * waits for the user.
 */

export type ServerState = 'starting' | 'running' | 'stopped' | 'missing';

export interface WorkDoneValue {
  readonly kind: 'begin' | 'report' | 'end';
  readonly title?: string;
  readonly message?: string;
  readonly percentage?: number;
  readonly cancellable?: boolean;
}

export interface ParsedProgress {
  readonly step?: number;
  readonly maxSteps?: number;
  readonly tool?: string;
  readonly approval: boolean;
}

/** The agent's tools (DESIGN.md), longest first so `read_file_snippet` wins over `read_file`. */
export const TOOL_NAMES: readonly string[] = [
  'propose_patch_unified',
  'read_file_snippet',
  'propose_patch',
  'final_answer',
  'apply_patch',
  'show_patch',
  'list_files',
  'git_status',
  'rg_search',
  'read_file',
  'repo_info',
  'run_tests',
  'git_diff',
  'git_log',
  'run_cmd',
];

const STEP_PATTERNS = [/\bstep\s+(\d+)\s*(?:of|\/)\s*(\d+)/i, /^\s*\[?(\d+)\s*\/\s*(\d+)\]?(?:\s|:|$)/];

/**
 * What a progress message says. The title (`lsp-agent: <the task>`) is only read for a step
 * number: the user's task text may well mention a tool or approvals.
 */
export function parseProgress(message: string | undefined, title?: string): ParsedProgress {
  let step: number | undefined;
  let maxSteps: number | undefined;
  for (const text of [message, title]) {
    if (!text || step !== undefined) continue;
    for (const pattern of STEP_PATTERNS) {
      const m = pattern.exec(text);
      if (m) {
        step = Number(m[1]);
        maxSteps = Number(m[2]);
        break;
      }
    }
  }
  const text = message ?? '';
  const tool = TOOL_NAMES.find((name) => new RegExp(`(^|[^A-Za-z0-9_])${name}($|[^A-Za-z0-9_])`).test(text));
  const approval = /approv/i.test(text);
  return { step, maxSteps, tool, approval };
}

interface Task {
  token: string | number;
  title: string;
  message: string;
  percentage?: number;
  step?: number;
  maxSteps?: number;
  tool?: string;
  approval: boolean;
}

export type StatusKind = 'stopped' | 'missing' | 'starting' | 'idle' | 'running' | 'approval';

export interface StatusView {
  readonly kind: StatusKind;
  readonly text: string;
  readonly tooltip: string;
  /** Theme colour id for the item's background, if any. */
  readonly background?: 'statusBarItem.warningBackground' | 'statusBarItem.errorBackground';
}

const CLICK = 'Click for LSP Agent actions.';

export class StatusModel {
  private server: ServerState = 'stopped';
  private readonly tasks = new Map<string, Task>();
  private pendingApprovals = 0;
  private lastEnded: string | undefined;

  setServer(state: ServerState): void {
    this.server = state;
    if (state !== 'running') {
      this.tasks.clear();
      this.pendingApprovals = 0;
    }
  }

  get serverState(): ServerState {
    return this.server;
  }

  /** Progress tokens still open (the jobs under way), as the server sent them. */
  activeTokens(): (string | number)[] {
    return [...this.tasks.values()].map((t) => t.token);
  }

  /** One `$/progress` value for `token`. */
  progress(token: string | number, value: WorkDoneValue): void {
    const key = String(token);
    if (value.kind === 'end') {
      const task = this.tasks.get(key);
      this.tasks.delete(key);
      this.lastEnded = [task?.title, value.message].filter(Boolean).join(': ') || undefined;
      return;
    }
    const previous = this.tasks.get(key);
    // A report without a begin (lost, or sent before create resolved) still shows.
    const title = value.kind === 'begin' ? (value.title ?? '') : (previous?.title ?? '');
    const message = value.message ?? (value.kind === 'begin' ? '' : (previous?.message ?? ''));
    const parsed = parseProgress(message, title);
    this.tasks.delete(key); // re-insert: the latest task shows
    this.tasks.set(key, {
      token,
      title,
      message,
      percentage: value.percentage ?? previous?.percentage,
      step: parsed.step ?? previous?.step,
      maxSteps: parsed.maxSteps ?? previous?.maxSteps,
      tool: parsed.tool ?? (value.message === undefined ? previous?.tool : undefined),
      approval: parsed.approval,
    });
  }

  /** A `workspace/applyEdit` (the refactor preview) or another approval prompt opened. */
  approvalStarted(): void {
    this.pendingApprovals += 1;
  }

  approvalEnded(): void {
    this.pendingApprovals = Math.max(0, this.pendingApprovals - 1);
  }

  view(): StatusView {
    if (this.server === 'missing') {
      return {
        kind: 'missing',
        text: '$(warning) Agent',
        tooltip: `LSP Agent: lsp-agent was not found. ${CLICK}`,
        background: 'statusBarItem.errorBackground',
      };
    }
    if (this.server === 'stopped') {
      return { kind: 'stopped', text: '$(circle-slash) Agent', tooltip: `LSP Agent: server stopped. ${CLICK}` };
    }
    if (this.server === 'starting') {
      return { kind: 'starting', text: '$(loading~spin) Agent', tooltip: 'LSP Agent: starting the server…' };
    }
    const latest = [...this.tasks.values()].at(-1);
    const waiting = this.pendingApprovals > 0 || [...this.tasks.values()].some((t) => t.approval);
    if (waiting) {
      const detail = latest ? describe(latest) : '';
      return {
        kind: 'approval',
        text: '$(bell) Agent: waiting for approval',
        tooltip: `LSP Agent: a patch waits for your approval${detail ? ` — ${detail}` : ''}. ${CLICK}`,
        background: 'statusBarItem.warningBackground',
      };
    }
    if (latest) {
      let progress = 'running';
      if (latest.step !== undefined && latest.maxSteps !== undefined) {
        progress = `step ${latest.step}/${latest.maxSteps}`;
      } else if (latest.message && latest.message.length <= 24) {
        progress = latest.message; // e.g. "starting"
      } else if (latest.percentage !== undefined) {
        progress = `${Math.round(latest.percentage)}%`;
      }
      const tool = latest.tool ? ` · ${latest.tool}` : '';
      const others = this.tasks.size > 1 ? ` (+${this.tasks.size - 1})` : '';
      return {
        kind: 'running',
        text: `$(sync~spin) Agent: ${progress}${tool}${others}`,
        tooltip: `LSP Agent: ${describe(latest)}. ${CLICK}`,
      };
    }
    const last = this.lastEnded ? ` Last job: ${this.lastEnded}.` : '';
    return { kind: 'idle', text: '$(hubot) Agent', tooltip: `LSP Agent: idle.${last} ${CLICK}` };
  }
}

function describe(task: Task): string {
  const parts = [task.title, task.message].filter((p) => p && p.trim());
  return parts.join(' — ') || 'working';
}
