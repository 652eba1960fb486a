"""Code mode (`AGENT_TYPE=code`): the model writes Python, run in the job's code container.

- `agent`: `LspCodeAgent` (smolagents' `CodeAgent`), its step monitor and `CodeMode`, the
  builder's mode;
- `executor`: smolagents' `PythonExecutor` on the sandbox's `CodeSession`: every tool call
  the code makes passes the host's `InstrumentedTool`;
- `messages`: the compact history (no second copy of each step's code);
- `prompts`: the system prompt with the tools as Python signatures.
"""
