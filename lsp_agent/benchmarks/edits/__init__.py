"""`lsp-agent bench edits`: the Exercism Python edit benchmark, beside aider and mini-swe-agent.

- `exercises`: aider's 133 exercises (data/, MIT, from exercism/python), samples, fresh repos;
- `task`: what each agent is asked (aider's benchmark texts; one task for the agents);
- `ours`: lsp-agent on one exercise, as `lsp-agent run --yes` runs it;
- `peers/`: aider and mini-swe-agent in their own environments, in throwaway containers;
- `endpoint` / `model_meter`: the one model endpoint all agents use, and the relay counting it;
- `judge`: the exercise's tests in the Docker sandbox decide; a changed test file fails;
- `results` / `report` / `bench`: the runs, the figures, the JSON (resumable), table and chart.
"""

from lsp_agent.benchmarks.edits.bench import measure
from lsp_agent.benchmarks.edits.report import print_report

__all__ = ["measure", "print_report"]
