"""The ACP front end: `lsp-agent acp`, the agent in an editor's agent panel.

The Agent Client Protocol (Zed, JetBrains, CodeCompanion, avante.nvim) speaks JSON-RPC in
newline-delimited JSON over stdio. The maintained Python SDK (`agent-client-protocol`,
imported as `acp`) routes the methods; this package is the host around the shared runtime,
like `lsp_agent.lsp`: `server` (stdio, stdout reserved), `transport` (bad input answered,
not dropped), `agent` (initialize, session/new, session/prompt, session/cancel), `session`
(one conversation: settings, a job at a time, cancel), `client_calls` (the job thread's
thread-safe calls to the client), `tool_updates` (progress as `tool_call` updates),
`approval` (`session/request_permission`), `files` (fs/read_text_file and
fs/write_text_file, or the disk) and `diff_content` (a patch as ACP diff content).
May import: `lsp_agent.agent`, `lsp_agent.settings`, `tools`, `safety`; never `lsp_agent.lsp`.
"""
