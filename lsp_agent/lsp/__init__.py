"""The LSP front end: the pygls server, its handlers and everything that speaks to an editor.

Only this package (and the CLI's headless clients) imports pygls/lsprotocol. It turns editor
requests into agent jobs (`lsp_agent.agent`) and approved patches into workspace edits.
"""
