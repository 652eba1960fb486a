/**
 * Every VS Code setting of the extension, as data: the one source for
 *  - `contributes.configuration` in package.json (written by `npm run settings-map`),
 *  - `settings-map.json` (the same data, compared to the server's `Settings` by
 *    `tests/unit/test_vscode_settings.py`),
 *  - the keys sent to the server (`initializationOptions`, `workspace/configuration`,
 *    `workspace/didChangeConfiguration`).
 *
 * Server settings are sent by their env-style key (`MODEL_ID`), which the server accepts
 * next to camelCase. Client settings (how to start the server) never reach the server.
 *
 * Security settings (`userScope: true`: where code runs, where data goes, what is allowed) are
 * declared with `"scope": "application"`, so only the user's own settings can hold them, and
 * only their user (global) value is ever sent: a repository's `.vscode/settings.json` cannot
 * set them. `tests/unit/test_vscode_settings.py` checks they are the server's security keys.
 *
 * No `vscode` import here: this module is loaded by Node scripts and unit tests.
 */

export const SECTION = 'lspAgent';

export type SettingType = 'string' | 'integer' | 'number' | 'boolean' | 'array';
export type SettingValue = string | number | boolean | string[];
export type SettingScope = 'application' | 'machine' | 'machine-overridable' | 'window' | 'resource';

interface SettingBase {
  /** Key under the `lspAgent` section, e.g. `model.id` -> `lspAgent.model.id`. */
  readonly key: string;
  readonly type: SettingType;
  readonly default: SettingValue;
  readonly markdownDescription: string;
  readonly enum?: readonly string[];
  readonly enumDescriptions?: readonly string[];
  readonly minimum?: number;
  readonly maximum?: number;
  readonly pattern?: string;
  readonly patternErrorMessage?: string;
  readonly scope?: SettingScope;
}

/** A setting the server reads (field of `lsp_agent.settings.Settings`). */
export interface ServerSetting extends SettingBase {
  /** The server's env-style key (`Settings.env_key(field)`), e.g. `MODEL_ID`. */
  readonly serverKey: string;
  /** A security key: application scope, only the user's (global) value is sent. */
  readonly userScope?: boolean;
}

/** A setting only the extension reads (how to start the server, tracing). */
export interface ClientSetting extends SettingBase {
  readonly serverKey?: undefined;
}

const URL_OR_EMPTY = '^(https?://\\S+)?$';
const URL = '^https?://\\S+$';

export const SERVER_SETTINGS: readonly ServerSetting[] = [
  {
    key: 'model.id',
    userScope: true,
    serverKey: 'MODEL_ID',
    type: 'string',
    default: 'ollama_chat/qwen2.5-coder:14b',
    pattern: '\\S',
    patternErrorMessage: 'A model id is required.',
    markdownDescription:
      'LiteLLM model id: `ollama_chat/qwen2.5-coder:14b`, `openai/<name>` (with **Api Base** set to any OpenAI-compatible server), `embedded`, or `scripted:PATH`.',
  },
  {
    key: 'model.apiBase',
    userScope: true,
    serverKey: 'MODEL_API_BASE',
    type: 'string',
    default: '',
    pattern: URL_OR_EMPTY,
    patternErrorMessage: 'An http:// or https:// URL, or empty.',
    markdownDescription:
      "Model server URL, e.g. `http://localhost:8000/v1`. Empty means the provider's default (Ollama: `http://localhost:11434`).",
  },
  {
    key: 'model.contextLength',
    serverKey: 'MODEL_NUM_CTX',
    type: 'integer',
    default: 8192,
    minimum: 512,
    maximum: 1048576,
    markdownDescription:
      'Context window in tokens, sent to Ollama explicitly (Ollama truncates silently otherwise).',
  },
  {
    key: 'model.temperature',
    serverKey: 'MODEL_TEMPERATURE',
    type: 'number',
    default: 0.1,
    minimum: 0,
    maximum: 2,
    markdownDescription: 'Sampling temperature.',
  },
  {
    key: 'model.maxTokens',
    serverKey: 'MODEL_MAX_TOKENS',
    type: 'integer',
    default: 1024,
    minimum: 1,
    maximum: 32768,
    markdownDescription: 'Most tokens one model reply may have.',
  },
  {
    key: 'model.fallbacks',
    userScope: true,
    serverKey: 'MODEL_FALLBACKS',
    type: 'array',
    default: [],
    markdownDescription:
      'Model ids tried in order when the main model fails; `ID@http://host:port/v1` names another server.',
  },
  {
    key: 'model.constrainedCalls',
    serverKey: 'MODEL_CONSTRAINED_CALLS',
    type: 'boolean',
    default: true,
    markdownDescription:
      'Constrain each model reply to one valid tool call with a JSON schema (Ollama `format`, `response_format` for OpenAI-compatible servers such as llama.cpp or vLLM). The embedded model always uses its grammar.',
  },
  {
    key: 'agent.maxSteps',
    serverKey: 'AGENT_MAX_STEPS',
    type: 'integer',
    default: 25,
    minimum: 1,
    maximum: 500,
    markdownDescription: 'Most agent steps in one job.',
  },
  {
    key: 'agent.policyFile',
    userScope: true,
    serverKey: 'POLICY_FILE',
    type: 'string',
    default: '',
    markdownDescription:
      "Your own command-policy rules (a TOML file) over the built-in ones; they may loosen them. A repository's `.lsp-agent/policy.toml` can only make the policy stricter.",
  },
  {
    key: 'agent.type',
    serverKey: 'AGENT_TYPE',
    userScope: true,
    type: 'string',
    default: 'tool_calling',
    enum: ['tool_calling', 'code'],
    enumDescriptions: [
      'The model calls tools with JSON.',
      'The model writes Python, run in the Docker sandbox (tool calling without Docker).',
    ],
    markdownDescription: 'How the agent acts.',
  },
  {
    key: 'agent.planningInterval',
    serverKey: 'AGENT_PLANNING_INTERVAL',
    type: 'integer',
    default: 0,
    minimum: 0,
    maximum: 100,
    markdownDescription: 'Plan first and again every N steps (one extra model call each); 0 = no planning.',
  },
  {
    key: 'agent.subagents',
    serverKey: 'AGENT_SUBAGENTS',
    userScope: true,
    type: 'array',
    default: [],
    markdownDescription: 'Helper agents the main agent may call as tools (`explorer`: read-only).',
  },
  {
    key: 'agent.editFormats',
    serverKey: 'AGENT_EDIT_FORMATS',
    type: 'array',
    default: ['search_replace', 'unified_diff'],
    markdownDescription:
      'How the agent may write changes: `search_replace` (propose_patch), `unified_diff` (propose_patch_unified), `whole_file` (propose_file: the whole new text of a file up to 200 lines), `whole_function` (propose_function: one Python function or class written anew).',
  },
  {
    key: 'agent.memory',
    serverKey: 'AGENT_MEMORY',
    userScope: true,
    type: 'boolean',
    default: false,
    markdownDescription: 'Remember facts about the repository between jobs.',
  },
  {
    key: 'mcpConfig',
    serverKey: 'MCP_CONFIG',
    userScope: true,
    type: 'string',
    default: '',
    markdownDescription: 'Path to a `{"mcpServers": {...}}` JSON file of MCP tool servers.',
  },
  {
    key: 'sandbox.backend',
    userScope: true,
    serverKey: 'SANDBOX_BACKEND',
    type: 'string',
    default: 'auto',
    enum: ['auto', 'docker', 'local', 'none'],
    enumDescriptions: [
      'Docker when available, else no checks (never your machine).',
      'Check patches in a hardened Docker container.',
      'Check patches in a temporary copy of the workspace (no isolation).',
      'Do not check patches.',
    ],
    markdownDescription: 'Where proposed patches are checked before you see them.',
  },
  {
    key: 'sandbox.timeoutSeconds',
    userScope: true,
    serverKey: 'SANDBOX_TIMEOUT_S',
    type: 'integer',
    default: 30,
    minimum: 1,
    maximum: 3600,
    markdownDescription: 'Seconds one sandbox command (patch check, tests) may run.',
  },
  {
    key: 'sandbox.checkCommand',
    userScope: true,
    serverKey: 'CHECK_COMMAND',
    type: 'string',
    default: '',
    markdownDescription:
      'Command that checks a patch in the sandbox, e.g. `pytest -q`. Empty: chosen automatically.',
  },
  {
    key: 'phoenix.enabled',
    userScope: true,
    serverKey: 'PHOENIX_ENABLED',
    type: 'boolean',
    default: true,
    markdownDescription: 'Export traces of every tool call and sandbox operation to Arize Phoenix.',
  },
  {
    key: 'phoenix.endpoint',
    userScope: true,
    serverKey: 'PHOENIX_ENDPOINT',
    type: 'string',
    default: 'http://localhost:6006/v1/traces',
    pattern: URL,
    patternErrorMessage: 'An http:// or https:// URL.',
    markdownDescription:
      'Phoenix OTLP/HTTP traces endpoint. **Open trace in Phoenix** opens the UI at the same address.',
  },
  {
    key: 'phoenix.project',
    userScope: true,
    serverKey: 'PHOENIX_PROJECT',
    type: 'string',
    default: 'lsp-agent',
    pattern: '\\S',
    patternErrorMessage: 'A project name is required.',
    markdownDescription: 'Phoenix project the traces go to.',
  },
  {
    key: 'completion.modelId',
    userScope: true,
    serverKey: 'COMPLETION_MODEL_ID',
    type: 'string',
    default: '',
    markdownDescription:
      'Inline completions (ghost text) from this model; empty = off. `embedded:qwen2.5-coder-1.5b` or `embedded:/path/model.gguf` (in-process, one copy shared with the agent), `openai/<name>` (llama.cpp `llama-server`, its `/infill`) or `ollama/<name>`.',
  },
  {
    key: 'completion.apiBase',
    userScope: true,
    serverKey: 'COMPLETION_API_BASE',
    type: 'string',
    default: '',
    pattern: URL_OR_EMPTY,
    patternErrorMessage: 'An http:// or https:// URL, or empty.',
    markdownDescription:
      'Server for inline completions; empty = the default (llama-server `http://127.0.0.1:8080`, Ollama `http://localhost:11434`).',
  },
  {
    key: 'completion.maxTokens',
    serverKey: 'COMPLETION_MAX_TOKENS',
    type: 'integer',
    default: 128,
    minimum: 1,
    maximum: 2048,
    markdownDescription: 'Most tokens one inline completion may have.',
  },
  {
    key: 'completion.promptMs',
    serverKey: 'COMPLETION_PROMPT_MS',
    type: 'integer',
    default: 0,
    minimum: 0,
    maximum: 600000,
    markdownDescription:
      "Time budget for reading a completion's prompt; past it the request answers nothing and the next one goes on from there (0 = no limit).",
  },
  {
    key: 'completion.predictMs',
    serverKey: 'COMPLETION_PREDICT_MS',
    type: 'integer',
    default: 500,
    minimum: 0,
    maximum: 600000,
    markdownDescription:
      'Time budget for writing a completion: past it, it ends at the next line break (0 = no limit).',
  },
  {
    key: 'completion.debounceMs',
    serverKey: 'COMPLETION_DEBOUNCE_MS',
    type: 'integer',
    default: 100,
    minimum: 0,
    maximum: 10000,
    markdownDescription: 'Wait this long after a keystroke before asking the model.',
  },
  {
    key: 'server.logLevel',
    serverKey: 'LOG_LEVEL',
    type: 'string',
    default: 'INFO',
    enum: ['DEBUG', 'INFO', 'WARNING', 'ERROR', 'CRITICAL'],
    markdownDescription: 'Log level of the server (its log appears in the **LSP Agent** output).',
  },
];

export const CLIENT_SETTINGS: readonly ClientSetting[] = [
  {
    key: 'completion.enabled',
    type: 'boolean',
    default: true,
    scope: 'window',
    markdownDescription:
      'Show inline completions (ghost text, Tab accepts) when **Completion: Model Id** is set. The status bar item **$(sparkle)** turns them on and off.',
  },
  {
    key: 'server.command',
    type: 'array',
    default: [],
    scope: 'application',
    markdownDescription:
      'Command that starts the server, as a list, e.g. `["uvx", "lsp-agent", "serve"]`. Empty: use **Python Path** if set, else find `lsp-agent` in the workspace `.venv`, on `PATH` or in `~/.local/bin` (pipx, uv tool). `${workspaceFolder}` and `~` are expanded.',
  },
  {
    key: 'server.pythonPath',
    type: 'string',
    default: '',
    scope: 'application',
    markdownDescription:
      'Python interpreter that has lsp-agent installed; the server is started as `python -m lsp_agent serve`. Used when **Command** is empty.',
  },
  {
    key: 'trace.server',
    type: 'string',
    default: 'messages',
    enum: ['messages', 'verbose'],
    scope: 'window',
    markdownDescription:
      'Detail of the LSP message trace (for debugging). The trace is recorded in the **LSP Agent** output when its log level is Trace (**Developer: Set Log Level…**); `verbose` includes the message bodies.',
  },
];

export const ALL_SETTINGS: readonly (ServerSetting | ClientSetting)[] = [
  ...SERVER_SETTINGS,
  ...CLIENT_SETTINGS,
];

export function fullKey(setting: { key: string }): string {
  return `${SECTION}.${setting.key}`;
}

/** The JSON schema of one setting, as `contributes.configuration.properties` wants it. */
export function contributedProperty(
  setting: ServerSetting | ClientSetting,
  order: number,
): Record<string, unknown> {
  const property: Record<string, unknown> = {
    type: setting.type,
    default: setting.default,
    markdownDescription: setting.markdownDescription,
    order,
  };
  if (setting.type === 'array') property.items = { type: 'string' };
  if (setting.enum) property.enum = [...setting.enum];
  if (setting.enumDescriptions) property.enumDescriptions = [...setting.enumDescriptions];
  if (setting.minimum !== undefined) property.minimum = setting.minimum;
  if (setting.maximum !== undefined) property.maximum = setting.maximum;
  if (setting.pattern !== undefined) property.pattern = setting.pattern;
  if (setting.patternErrorMessage !== undefined) {
    property.patternErrorMessage = setting.patternErrorMessage;
  }
  property.scope = 'userScope' in setting && setting.userScope ? 'application' : (setting.scope ?? 'window');
  return property;
}

/** `contributes.configuration` for package.json. */
export function contributedConfiguration(): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  ALL_SETTINGS.forEach((setting, index) => {
    properties[fullKey(setting)] = contributedProperty(setting, index);
  });
  return { title: 'LSP Agent', properties };
}

/** `settings-map.json`: what the Python test compares to the server's `Settings`. */
export function settingsMapDocument(): Record<string, unknown> {
  return {
    $comment:
      'Generated from editors/vscode/src/settingsMap.ts by `npm run settings-map`; checked by the build and tests/unit/test_vscode_settings.py.',
    section: SECTION,
    serverSettings: SERVER_SETTINGS.map((s) => ({
      setting: fullKey(s),
      serverKey: s.serverKey,
      userScope: s.userScope === true,
      type: s.type,
      default: s.default,
      ...(s.enum ? { enum: [...s.enum] } : {}),
      ...(s.minimum !== undefined ? { minimum: s.minimum } : {}),
      ...(s.maximum !== undefined ? { maximum: s.maximum } : {}),
    })),
    clientSettings: CLIENT_SETTINGS.map((s) => fullKey(s)),
  };
}

/** The README's settings table (between the `settings:start` / `settings:end` markers). */
export function settingsTable(): string {
  const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const shown = (value: SettingValue): string => {
    if (Array.isArray(value)) return value.length ? `\`${JSON.stringify(value)}\`` : '`[]`';
    if (value === '') return '(empty)';
    return `\`${String(value)}\``;
  };
  const rows = ALL_SETTINGS.map((s) => {
    const choices = s.enum ? ` One of ${s.enum.map((e) => `\`${e}\``).join(', ')}.` : '';
    const range =
      s.minimum !== undefined && s.maximum !== undefined ? ` From ${s.minimum} to ${s.maximum}.` : '';
    return `| \`${fullKey(s)}\` | ${s.serverKey ? `\`${s.serverKey}\`` : '(client)'} | ${shown(s.default)} | ${cell(
      s.markdownDescription + choices + range,
    )} |`;
  });
  return ['| Setting | Server key | Default | Meaning |', '| --- | --- | --- | --- |', ...rows].join('\n');
}
