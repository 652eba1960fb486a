import assert from 'node:assert/strict';
import { findTraceId, phoenixLink, phoenixUiBase, phoenixUrl } from '../src/phoenix';

const TRACE = '0af7651916cd43dd8448eb211c80319c';

describe('Phoenix UI address', () => {
  it('strips /v1/traces from the OTLP endpoint', () => {
    assert.equal(phoenixUiBase('http://localhost:6006/v1/traces'), 'http://localhost:6006');
    assert.equal(phoenixUiBase('http://127.0.0.1:7007/v1/traces/'), 'http://127.0.0.1:7007');
    assert.equal(phoenixUiBase('https://obs.example.com/phoenix/v1/traces'), 'https://obs.example.com/phoenix');
    assert.equal(phoenixUiBase('https://app.phoenix.arize.com/s/me/v1/traces'), 'https://app.phoenix.arize.com/s/me');
  });

  it('maps the gRPC port to the UI port', () => {
    assert.equal(phoenixUiBase('http://localhost:4317'), 'http://localhost:6006');
  });

  it('falls back to the default for empty or invalid endpoints', () => {
    assert.equal(phoenixUiBase(''), 'http://localhost:6006');
    assert.equal(phoenixUiBase('not a url'), 'http://localhost:6006');
    assert.equal(phoenixUiBase('ftp://x/v1/traces'), 'http://localhost:6006');
  });

  it('links the trace, else the project, else all projects', () => {
    assert.equal(phoenixUrl('http://localhost:6006/v1/traces', { traceId: TRACE, project: 'p' }), `http://localhost:6006/redirects/traces/${TRACE}`);
    assert.equal(phoenixUrl('http://localhost:6006/v1/traces', { project: 'my project' }), 'http://localhost:6006/redirects/projects/my%20project');
    assert.equal(phoenixUrl('http://localhost:6006/v1/traces', { traceId: 'nope' }), 'http://localhost:6006/projects');
  });

  it('finds a trace id anywhere in the status, newest job first', () => {
    assert.equal(findTraceId({ jobs: [{ traceId: 'a'.repeat(32) }, { trace_id: TRACE }] }), TRACE);
    assert.equal(findTraceId({ jobs: [] }), undefined);
    assert.equal(findTraceId(null), undefined);
  });

  it("prefers the server's effective endpoint and project over the settings", () => {
    const settings = { endpoint: 'http://localhost:6006/v1/traces', project: 'lsp-agent' };
    assert.equal(phoenixLink(undefined, settings), 'http://localhost:6006/redirects/projects/lsp-agent');
    assert.equal(
      phoenixLink({ settings: { PHOENIX_ENDPOINT: 'http://h:9/v1/traces', PHOENIX_PROJECT: 'x' } }, settings),
      'http://h:9/redirects/projects/x',
    );
    assert.equal(phoenixLink({ lastTraceId: TRACE }, settings), `http://localhost:6006/redirects/traces/${TRACE}`);
  });
});
