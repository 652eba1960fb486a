"""The agent runtime: one job from task to final answer, whatever front end asked for it.

The smolagents loop (factory, prompts, bounded context), the job contract its hosts share
(`job_types`) and the tracing set-up. It knows no editor protocol: hosts inject an
`ApprovalGate`, a `PatchWriter` and a progress callback.
"""
