/**
 * The Phoenix UI address, derived from the OTLP traces endpoint the server exports to.
 *
 * Phoenix serves its UI and its OTLP/HTTP receiver on one port (`http://HOST:6006/v1/traces` ->
 * UI at `http://HOST:6006`), also behind a path prefix (`https://host/phoenix/v1/traces` ->
 * `https://host/phoenix`). Its gRPC receiver (4317) has no UI: the UI is then on 6006.
 * Phoenix's UI (checked on 20.x) resolves `/redirects/traces/<otel trace id>` and
 * `/redirects/projects/<name>`. lsp-agent's `lspAgent.status` carries no trace id yet, so the
 * link goes to the project unless a status reports one.
 */

import { findString } from './jobs';

export const DEFAULT_ENDPOINT = 'http://localhost:6006/v1/traces';
const GRPC_PORT = '4317';
const UI_PORT = '6006';

export function phoenixUiBase(endpoint: string): string {
  let url: URL;
  try {
    url = new URL(endpoint.trim() || DEFAULT_ENDPOINT);
  } catch {
    url = new URL(DEFAULT_ENDPOINT);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') url = new URL(DEFAULT_ENDPOINT);
  if (url.port === GRPC_PORT) {
    url.port = UI_PORT;
    url.protocol = 'http:';
  }
  let path = url.pathname.replace(/\/+$/, '');
  path = path.replace(/\/v1\/traces$/, '').replace(/\/v1$/, '');
  return `${url.protocol}//${url.host}${path}`;
}

/** Where "Open trace in Phoenix" goes: the trace if known, else the project, else all projects. */
export function phoenixUrl(
  endpoint: string,
  target: { traceId?: string; project?: string } = {},
): string {
  const base = phoenixUiBase(endpoint);
  const traceId = target.traceId?.trim();
  if (traceId && /^[0-9a-fA-F]{32}$/.test(traceId)) {
    return `${base}/redirects/traces/${traceId.toLowerCase()}`;
  }
  const project = target.project?.trim();
  if (project) return `${base}/redirects/projects/${encodeURIComponent(project)}`;
  return `${base}/projects`;
}

/** A trace id in whatever the server's `lspAgent.status` returns (`traceId`/`trace_id`, nested). */
export function findTraceId(value: unknown, depth = 0): string | undefined {
  if (depth > 4 || value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (let i = value.length - 1; i >= 0; i--) {
      const found = findTraceId(value[i], depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  const record = value as Record<string, unknown>;
  for (const key of ['traceId', 'trace_id', 'lastTraceId', 'last_trace_id']) {
    const v = record[key];
    if (typeof v === 'string' && /^[0-9a-fA-F]{32}$/.test(v)) return v;
  }
  for (const v of Object.values(record)) {
    const found = findTraceId(v, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * The link for "Open trace in Phoenix": the server's effective endpoint and project when its
 * `lspAgent.status` reports them (they may come from `.env`), else the VS Code settings; the
 * newest trace id in the status, if any.
 */
export function phoenixLink(status: unknown, configured: { endpoint: string; project: string }): string {
  const endpoint =
    findString(status, ['phoenixEndpoint', 'phoenix_endpoint', 'PHOENIX_ENDPOINT']) ?? configured.endpoint;
  const project =
    findString(status, ['phoenixProject', 'phoenix_project', 'PHOENIX_PROJECT']) ?? configured.project;
  return phoenixUrl(endpoint, { traceId: findTraceId(status), project });
}
