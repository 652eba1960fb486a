/**
 * The server's stderr, line by line, into VS Code's log output channel at the right level.
 *
 * The server logs `2025-01-02 03:04:05,678 LEVEL logger: message` (lsp_agent/logging_setup.py).
 * The channel adds its own time stamp and level, so both are taken off; lines that do not start a
 * record (a traceback, a library's raw print) keep the level of the record before them.
 */

export type ChannelLevel = 'debug' | 'info' | 'warn' | 'error';

export interface LogLine {
  readonly level: ChannelLevel;
  readonly text: string;
}

const RECORD = /^\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[,.]\d+)?\s+(DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\s+(.*)$/;

const LEVELS: Record<string, ChannelLevel> = {
  DEBUG: 'info', // shown at the channel's default level: the user asked the server for DEBUG
  INFO: 'info',
  WARNING: 'warn',
  WARN: 'warn',
  ERROR: 'error',
  CRITICAL: 'error',
};

export function createStderrClassifier(): (line: string) => LogLine {
  let current: ChannelLevel = 'info';
  return (line: string): LogLine => {
    const m = RECORD.exec(line);
    if (m) {
      current = LEVELS[m[1]] ?? 'info';
      return { level: current, text: m[1] === 'DEBUG' ? `DEBUG ${m[2]}` : m[2] };
    }
    if (/^Traceback \(most recent call last\)/.test(line)) current = 'error';
    return { level: current, text: line };
  };
}
