/**
 * The server process, spawned by the extension (not by the language client), so that why a start
 * failed is a fact, not a race. Node reports a failed spawn (`ENOENT`, `EACCES`) as an `error`
 * event and a process that ran and died as an `exit` event; the language client, for its part,
 * may notice a dead server first as a failed write of `initialize` or first as a closed stream,
 * depending on scheduling. `describeStartFailure` decides from what happened to the process:
 *
 *  - the spawn failed -> "could not start the server (…): spawn … ENOENT";
 *  - the server answered `initialize` with an error -> "the server refused to start: …";
 *  - the process exited before it was up -> "exited while starting (exit code N)";
 *  - else (still alive, yet the connection failed) -> "could not start the server (…): …".
 */
import { type ChildProcess, spawn, type SpawnOptions } from 'node:child_process';

export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** The spawn itself failed: no process ran. */
export class SpawnError extends Error {
  constructor(
    readonly command: string,
    readonly cause: Error,
  ) {
    super(cause.message);
    this.name = 'SpawnError';
  }
}

export class ServerProcess {
  private exit: ProcessExit | undefined;
  private readonly exited: Promise<ProcessExit>;

  private constructor(readonly child: ChildProcess) {
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        resolve(this.exit);
      });
    });
  }

  /** Spawns `command`; resolves once the process runs, rejects with a `SpawnError` when it cannot. */
  static start(command: string, args: readonly string[], options: SpawnOptions): Promise<ServerProcess> {
    return new Promise((resolve, reject) => {
      const child = spawn(command, [...args], { ...options, stdio: 'pipe' });
      const process = new ServerProcess(child);
      const onError = (error: Error): void => {
        child.removeListener('spawn', onSpawn);
        reject(new SpawnError(command, error));
      };
      const onSpawn = (): void => {
        child.removeListener('error', onError);
        // Later errors (a failed kill, a broken pipe) are the connection's business.
        child.on('error', () => undefined);
        resolve(process);
      };
      child.once('error', onError);
      child.once('spawn', onSpawn);
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** How the process ended, if it has. */
  get exitStatus(): ProcessExit | undefined {
    return this.exit;
  }

  /** How the process ended, waiting at most `timeoutMs`; undefined while it still runs. */
  async exitWithin(timeoutMs: number): Promise<ProcessExit | undefined> {
    if (this.exit) return this.exit;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), timeoutMs);
    });
    try {
      return await Promise.race([this.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Ends the process if it still runs after `graceMs` (after a shutdown request, say). */
  async stop(graceMs: number): Promise<void> {
    if (this.exit || (await this.exitWithin(graceMs))) return;
    this.child.kill('SIGTERM');
    if (await this.exitWithin(2000)) return;
    this.child.kill('SIGKILL');
  }
}

export interface StartFailure {
  /** The server as the user configured it, e.g. `/usr/bin/python -m lsp_agent serve`. */
  readonly description: string;
  /** What `LanguageClient.start()` rejected with, if it did. */
  readonly error?: unknown;
  /** The process, when it was spawned. */
  readonly exit?: ProcessExit;
  readonly spawned: boolean;
}

export const NOT_RESTARTED =
  'so it is not restarted. See the LSP Agent output, check the lspAgent.server settings, then run "LSP Agent: Restart server".';

function exitText(exit: ProcessExit): string {
  if (exit.signal) return `killed by ${exit.signal}`;
  return `exit code ${exit.code ?? '?'}`;
}

/**
 * An error response the server sent (duck-typed: this module loads without the client). The
 * client makes ResponseErrors of its own when the connection fails (a failed write, a response
 * pending when the connection closed: codes -32099 to -32096); those are not the server's answer.
 */
function isServerResponseError(error: unknown): error is { code: number; message: string } {
  if (!(error instanceof Error) || error instanceof SpawnError) return false;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'number' && !(code >= -32099 && code <= -32096);
}

export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** The one message for a server that did not come up, from what happened to its process. */
export function describeStartFailure(failure: StartFailure): string {
  const { description, error } = failure;
  if (error instanceof SpawnError || !failure.spawned) {
    const why = error === undefined ? 'it did not start' : errorText(error);
    return `LSP Agent: could not start the server (${description}): ${why}`;
  }
  if (isServerResponseError(error)) {
    return `LSP Agent: the server refused to start (${description}): ${error.message}`;
  }
  if (failure.exit) {
    return `LSP Agent: the server exited while starting (${exitText(failure.exit)}), ${NOT_RESTARTED}`;
  }
  const why = error === undefined ? 'the connection closed' : errorText(error);
  return `LSP Agent: could not start the server (${description}): ${why}`;
}
