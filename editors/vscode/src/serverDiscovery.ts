/**
 * How the extension finds the command that starts `lsp-agent serve`.
 *
 * In order, the first that applies wins:
 *  1. `lspAgent.server.command` (a list: program and arguments, used as given);
 *  2. `lspAgent.server.pythonPath` -> `PYTHON -m lsp_agent serve`;
 *  3. `lsp-agent` in a workspace folder's `.venv` (then in `$VIRTUAL_ENV`);
 *  4. `lsp-agent` on `PATH`;
 *  5. `lsp-agent` in the bin folders pipx and `uv tool` install to, which a VS Code started from
 *     the desktop often lacks on its `PATH` (`$UV_TOOL_BIN_DIR`, `$PIPX_BIN_DIR`, `$XDG_BIN_HOME`,
 *     `~/.local/bin`).
 * Pure: file checks come in as a function, so tests need no file system.
 */

export interface DiscoveryInput {
  /** `lspAgent.server.command`; empty = not set. */
  readonly command: readonly string[];
  /** `lspAgent.server.pythonPath`; empty = not set. */
  readonly pythonPath: string;
  /** File-system paths of the workspace folders, first one first. */
  readonly workspaceFolders: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly platform: NodeJS.Platform;
  readonly homedir: string;
  /** True when `path` is an executable file. */
  readonly isExecutable: (path: string) => boolean;
}

export type ServerSource = 'command setting' | 'pythonPath setting' | 'workspace .venv' | 'VIRTUAL_ENV' | 'PATH' | 'tool bin';

export interface FoundServer {
  readonly ok: true;
  readonly command: string;
  readonly args: readonly string[];
  readonly source: ServerSource;
  /** Human-readable, for the log and the status. */
  readonly description: string;
}

export interface MissingServer {
  readonly ok: false;
  /** Every place looked at, for the error message. */
  readonly tried: readonly string[];
  readonly message: string;
}

export const SERVE_ARGS: readonly string[] = ['serve'];

interface PathOps {
  sep: string;
  delimiter: string;
  join: (...parts: string[]) => string;
}

function pathOps(platform: NodeJS.Platform): PathOps {
  const windows = platform === 'win32';
  const sep = windows ? '\\' : '/';
  return {
    sep,
    delimiter: windows ? ';' : ':',
    join: (...parts: string[]) =>
      parts
        .filter((p) => p !== '')
        .map((p, i) => (i === 0 ? p.replace(/[\\/]+$/, '') : p.replace(/^[\\/]+|[\\/]+$/g, '')))
        .join(sep),
  };
}

/** Expand `${workspaceFolder}`, `${userHome}`, `${env:NAME}` and a leading `~`. */
export function expandVariables(
  text: string,
  input: Pick<DiscoveryInput, 'workspaceFolders' | 'env' | 'homedir'>,
): string {
  let out = text.replace(/\$\{(workspaceFolder|userHome|env:([A-Za-z_][A-Za-z0-9_]*))\}/g, (_m, name: string, envName?: string) => {
    if (name === 'workspaceFolder') return input.workspaceFolders[0] ?? '';
    if (name === 'userHome') return input.homedir;
    return input.env[envName ?? ''] ?? '';
  });
  if (out === '~' || out.startsWith('~/') || out.startsWith('~\\')) {
    out = input.homedir + out.slice(1);
  }
  return out;
}

/** Names the console script has on this platform. */
function scriptNames(platform: NodeJS.Platform): string[] {
  return platform === 'win32' ? ['lsp-agent.exe', 'lsp-agent.cmd', 'lsp-agent.bat'] : ['lsp-agent'];
}

function venvBin(platform: NodeJS.Platform): string {
  return platform === 'win32' ? 'Scripts' : 'bin';
}

/** Where `lsp-agent` may be, in order, with the source each place counts as. */
export function candidatePaths(input: DiscoveryInput): { path: string; source: ServerSource }[] {
  const p = pathOps(input.platform);
  const names = scriptNames(input.platform);
  const out: { path: string; source: ServerSource }[] = [];
  const add = (dir: string, source: ServerSource): void => {
    if (!dir) return;
    for (const name of names) out.push({ path: p.join(dir, name), source });
  };
  for (const folder of input.workspaceFolders) add(p.join(folder, '.venv', venvBin(input.platform)), 'workspace .venv');
  if (input.env.VIRTUAL_ENV) add(p.join(input.env.VIRTUAL_ENV, venvBin(input.platform)), 'VIRTUAL_ENV');
  const pathVar = input.env.PATH ?? input.env.Path ?? '';
  for (const dir of pathVar.split(p.delimiter)) if (dir) add(dir, 'PATH');
  const toolDirs = [
    input.env.UV_TOOL_BIN_DIR ?? '',
    input.env.PIPX_BIN_DIR ?? '',
    input.env.XDG_BIN_HOME ?? '',
    input.homedir ? p.join(input.homedir, '.local', 'bin') : '',
  ];
  for (const dir of toolDirs) add(dir, 'tool bin');
  // The same file can be reached twice (PATH also holds ~/.local/bin): keep the first.
  const seen = new Set<string>();
  return out.filter((c) => (seen.has(c.path) ? false : (seen.add(c.path), true)));
}

export function discoverServer(input: DiscoveryInput): FoundServer | MissingServer {
  const command = input.command.map((part) => part.trim()).filter(Boolean);
  if (command.length > 0) {
    const [program, ...args] = command.map((part) => expandVariables(part, input));
    return {
      ok: true,
      command: program,
      args,
      source: 'command setting',
      description: `${[program, ...args].join(' ')} (from lspAgent.server.command)`,
    };
  }
  const python = input.pythonPath.trim();
  if (python) {
    const program = expandVariables(python, input);
    const args = ['-m', 'lsp_agent', ...SERVE_ARGS];
    return {
      ok: true,
      command: program,
      args,
      source: 'pythonPath setting',
      description: `${program} ${args.join(' ')} (from lspAgent.server.pythonPath)`,
    };
  }
  const candidates = candidatePaths(input);
  for (const candidate of candidates) {
    if (input.isExecutable(candidate.path)) {
      return {
        ok: true,
        command: candidate.path,
        args: [...SERVE_ARGS],
        source: candidate.source,
        description: `${candidate.path} ${SERVE_ARGS.join(' ')} (found in ${candidate.source})`,
      };
    }
  }
  const tried = candidates.map((c) => c.path);
  return {
    ok: false,
    tried,
    message:
      'LSP Agent: could not find `lsp-agent` (looked in the workspace .venv, on PATH and in ~/.local/bin). ' +
      'Install it with `uv tool install PATH-TO-LSP-AGENT` or `pipx install PATH-TO-LSP-AGENT`, or into the ' +
      "workspace's .venv, or set lspAgent.server.command or lspAgent.server.pythonPath.",
  };
}
