"""Workspace memory: one file per workspace in the user's data dir, redacted, bounded."""

from __future__ import annotations

from pathlib import Path

from lsp_agent.agent.memory import MAX_NOTES, WorkspaceMemory, memory_dir


def test_the_store_lives_in_the_user_data_dir(tmp_path: Path) -> None:
    assert memory_dir({"XDG_DATA_HOME": str(tmp_path)}) == tmp_path / "lsp-agent" / "memory"
    assert memory_dir({"HOME": "/home/u"}) == Path("/home/u/.local/share/lsp-agent/memory")


def test_add_list_clear_and_one_file_per_workspace(tmp_path: Path) -> None:
    store = tmp_path / "store"
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    memory = WorkspaceMemory(a, store)
    assert memory.add("uses pytest") == 1 and memory.add("uses pytest") == 1  # deduplicated
    assert memory.add("docs in docs/") == 2
    assert [n.text for n in memory.notes()] == ["uses pytest", "docs in docs/"]
    assert WorkspaceMemory(b, store).notes() == []
    assert memory.path.parent == store and (store.stat().st_mode & 0o077) == 0
    assert memory.clear() == 2 and memory.notes() == []


def test_notes_are_redacted_and_bounded(tmp_path: Path) -> None:
    memory = WorkspaceMemory(tmp_path, tmp_path / "store")
    memory.add("key AKIAIOSFODNN7EXAMPLE in ci")
    assert "AKIA" not in memory.notes()[0].text and "[REDACTED]" in memory.notes()[0].text
    for n in range(MAX_NOTES + 5):
        memory.add(f"fact {n}")
    notes = memory.notes()
    assert len(notes) == MAX_NOTES and notes[-1].text == f"fact {MAX_NOTES + 4}"


def test_the_prompt_block_takes_the_newest_notes_within_its_budget(tmp_path: Path) -> None:
    memory = WorkspaceMemory(tmp_path, tmp_path / "store")
    assert memory.for_model() == ""
    for n in range(40):
        memory.add(f"fact number {n}: " + "x" * 40)
    block = memory.for_model(budget_tokens=100)
    assert block.startswith("Notes from earlier tasks")
    assert "fact number 39" in block and "fact number 0:" not in block
    assert len(block) <= 100 * 2.2 + 60
