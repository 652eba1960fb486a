"""The small-model compliance suite behind `lsp-agent bench models` (see docs/compliance.md).

- `fixture_repo`: the small repository the levels run on, shipped as data;
- `levels`: L0–L8 — task text, step budget, checker and scripted reference solution;
- `checks`: checkers that decide pass/fail from the outcome (answer, files), not the transcript;
- `suite`: runs levels × runs on fresh copies of the fixture, collects the figures;
- `report` / `chart`: Markdown tables, JSON, and a PNG of pass rate per level.
"""
