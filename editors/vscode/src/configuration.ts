/**
 * What the server gets from VS Code's settings.
 *
 * Only settings the user has set (user, workspace or folder level) are sent; the others go as
 * `null`, which the server skips. Security settings (`userScope`) are sent from the user's own
 * (global) settings only, never from a workspace or folder: the repository cannot choose where
 * code runs or where data goes. So a setting left at its default never hides a value from the
 * workspace's `.env` or the environment, and clearing a setting in VS Code gives the server's own
 * value back (`didChangeConfiguration` merges keys, a `null` removes the editor's override).
 */
import { SECTION, SERVER_SETTINGS, type ServerSetting, type SettingValue } from './settingsMap';

/** The part of `vscode.WorkspaceConfiguration` (for section `lspAgent`) used here. */
export interface ConfigReader {
  get<T>(key: string): T | undefined;
  inspect<T>(key: string):
    | {
        globalValue?: T;
        workspaceValue?: T;
        workspaceFolderValue?: T;
      }
    | undefined;
}

/** The part of `vscode.ConfigurationChangeEvent` used here. */
export interface ChangeEvent {
  affectsConfiguration(section: string): boolean;
}

export type ServerPayload = Record<string, SettingValue | null>;

export function isUserSet(config: ConfigReader, key: string): boolean {
  const info = config.inspect<unknown>(key);
  if (!info) return false;
  return (
    info.globalValue !== undefined ||
    info.workspaceValue !== undefined ||
    info.workspaceFolderValue !== undefined
  );
}

function normalise(setting: ServerSetting, value: unknown): SettingValue | null {
  switch (setting.type) {
    case 'string':
      return typeof value === 'string' ? value.trim() : null;
    case 'integer':
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'array':
      return Array.isArray(value)
        ? value.filter((v): v is string => typeof v === 'string').map((v) => v.trim()).filter(Boolean)
        : null;
  }
}

/** Every server key: the user's value, or `null` when the user has not set it. */
export function serverPayload(config: ConfigReader): ServerPayload {
  const payload: ServerPayload = {};
  for (const setting of SERVER_SETTINGS) {
    if (setting.userScope) {
      const globalValue = config.inspect<unknown>(setting.key)?.globalValue;
      payload[setting.serverKey] = globalValue === undefined ? null : normalise(setting, globalValue);
      continue;
    }
    payload[setting.serverKey] = isUserSet(config, setting.key)
      ? normalise(setting, config.get(setting.key))
      : null;
  }
  return payload;
}

/** `initializationOptions`: only the keys the user has set. */
export function initializationOptions(config: ConfigReader): Record<string, SettingValue> {
  const options: Record<string, SettingValue> = {};
  for (const [key, value] of Object.entries(serverPayload(config))) {
    if (value !== null) options[key] = value;
  }
  return options;
}

/** Does this change concern a setting the server reads? */
export function affectsServerSettings(event: ChangeEvent): boolean {
  return SERVER_SETTINGS.some((s) => event.affectsConfiguration(`${SECTION}.${s.key}`));
}

/** How the server is started, from the user's own (global) settings only. */
export interface ServerLaunchSettings {
  readonly command: readonly string[];
  readonly pythonPath: string;
  /** Launch settings a workspace or folder set, which are ignored (shown to the user once). */
  readonly ignored: readonly string[];
}

/**
 * `server.command` and `server.pythonPath` name the program VS Code runs on the host, so a
 * repository's `.vscode/settings.json` must not choose them: only the user's value counts
 * (the settings are also declared with `application` scope, which VS Code enforces).
 */
export function serverLaunchSettings(config: ConfigReader): ServerLaunchSettings {
  const ignored: string[] = [];
  const userValue = <T>(key: string): T | undefined => {
    const info = config.inspect<T>(key);
    if (info?.workspaceValue !== undefined || info?.workspaceFolderValue !== undefined) {
      ignored.push(`${SECTION}.${key}`);
    }
    return info?.globalValue;
  };
  const command = userValue<unknown>('server.command');
  const pythonPath = userValue<unknown>('server.pythonPath');
  return {
    command: Array.isArray(command) ? command.filter((v): v is string => typeof v === 'string') : [],
    pythonPath: typeof pythonPath === 'string' ? pythonPath : '',
    ignored,
  };
}

/** Does this change concern how the server is started (so it must restart)? */
export function affectsServerLaunch(event: ChangeEvent): boolean {
  return (
    event.affectsConfiguration(`${SECTION}.server.command`) ||
    event.affectsConfiguration(`${SECTION}.server.pythonPath`)
  );
}

/**
 * One answer to `workspace/configuration` for `section`, or `undefined` to let the language
 * client answer as usual (other sections). `lspAgent` gets the flat payload the server reads;
 * a single key (`lspAgent.model.id` or `lspAgent.MODEL_ID`) gets that value.
 */
export function configurationAnswer(
  section: string | undefined | null,
  payload: ServerPayload,
): { value: unknown } | undefined {
  if (section === SECTION) return { value: payload };
  if (!section || !section.startsWith(`${SECTION}.`)) return undefined;
  const rest = section.slice(SECTION.length + 1);
  if (rest in payload) return { value: payload[rest] };
  const setting = SERVER_SETTINGS.find((s) => s.key === rest);
  if (setting) return { value: payload[setting.serverKey] };
  return undefined;
}
