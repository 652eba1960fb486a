"""`AGENTS.md`: found, bounded, cut at a line with a note, never followed out of the repo."""

from __future__ import annotations

from pathlib import Path

from lsp_agent.agent.instructions import MAX_TOKENS, load_instructions, task_message
from lsp_agent.models.prompt_size import CHARS_PER_TOKEN


def test_none_without_a_file(tmp_path: Path) -> None:
    assert load_instructions(tmp_path) is None
    assert task_message("fix it", tmp_path) == "fix it"


def test_a_short_file_is_used_whole(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("Use tabs.\r\nRun make test.\n")
    found = load_instructions(tmp_path)
    assert found is not None and not found.cut
    assert found.text == "Use tabs.\nRun make test."
    assert found.describe().endswith("all of it used")
    message = task_message("fix it", tmp_path, notes="Notes from earlier tasks:\n- x")
    assert message.index("Use tabs.") < message.index("Notes from") < message.index("fix it")


def test_a_long_file_is_cut_at_a_line_within_the_budget(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("".join(f"line {n}\n" for n in range(40_000)))
    found = load_instructions(tmp_path)
    assert found is not None and found.cut
    body, note = found.text.rsplit("\n", 1)
    assert body.splitlines()[-1].startswith("line ") and note.startswith("[AGENTS.md is cut")
    assert len(body) <= MAX_TOKENS * CHARS_PER_TOKEN
    assert "cut to" in found.describe() and "of about" in found.describe()


def test_a_symlink_out_of_the_workspace_is_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("private notes")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "AGENTS.md").symlink_to(outside)
    assert load_instructions(repo) is None
