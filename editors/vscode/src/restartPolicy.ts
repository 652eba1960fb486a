/**
 * When the server dies unexpectedly, restart it, but not forever: at most `maxRestarts` within
 * `windowMs`. A server that dies before it ever came up (a wrong command or interpreter, a
 * broken install) is not restarted: that would only fail again. A manual restart (the command)
 * starts the count again.
 */

export interface RestartDecision {
  readonly restart: boolean;
  /** 1-based attempt number when restarting; the count reached when giving up. */
  readonly attempt: number;
  readonly maxRestarts: number;
  readonly message: string;
}

export class RestartPolicy {
  private crashes: number[] = [];

  constructor(
    readonly maxRestarts = 5,
    readonly windowMs = 3 * 60 * 1000,
  ) {}

  /** Record one crash at `now` (ms) and decide; `wasRunning`: it had finished starting. */
  onCrash(now: number, wasRunning = true): RestartDecision {
    if (!wasRunning) {
      return {
        restart: false,
        attempt: 0,
        maxRestarts: this.maxRestarts,
        message:
          'LSP Agent: the server exited while starting, so it is not restarted. See the LSP Agent output, ' +
          'check the lspAgent.server settings, then run "LSP Agent: Restart server".',
      };
    }
    this.crashes = this.crashes.filter((t) => now - t < this.windowMs);
    if (this.crashes.length >= this.maxRestarts) {
      const minutes = Math.round(this.windowMs / 60000);
      return {
        restart: false,
        attempt: this.crashes.length,
        maxRestarts: this.maxRestarts,
        message:
          `LSP Agent: the server stopped ${this.crashes.length + 1} times in ${minutes} minutes ` +
          'and will not be restarted. See the LSP Agent output for its log, then run "LSP Agent: Restart server".',
      };
    }
    this.crashes.push(now);
    const attempt = this.crashes.length;
    return {
      restart: true,
      attempt,
      maxRestarts: this.maxRestarts,
      message: `LSP Agent: the server stopped unexpectedly; restarting it (attempt ${attempt} of ${this.maxRestarts}).`,
    };
  }

  reset(): void {
    this.crashes = [];
  }
}
