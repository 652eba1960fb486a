"""tools/patches/undo.py: a job's writes reversed against the files as they are now."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tools.patches import (
    FilePatch,
    PatchResult,
    RecordingWriter,
    WriteJournal,
    WriteOutcome,
    Written,
    plan_undo,
)

LINES = "".join(f"line {n}\n" for n in range(1, 31))


def edit(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


def reader(files: dict[str, str | None]) -> Callable[[str], str | None]:
    return files.get


def restored(writes: list[Written], now: dict[str, str | None]) -> dict[str, str | None]:
    """The files after the plan is applied (files the plan leaves keep their text)."""
    plan = plan_undo(writes, reader(now))
    out = dict(now)
    for file in plan.result.files:
        assert file.before == now.get(file.path)
        out[file.path] = file.after
    return out


def test_a_file_still_as_the_job_left_it_comes_back_byte_for_byte() -> None:
    after = edit(LINES, "line 5\n", "line five\n")
    plan = plan_undo([Written("a.py", "a.py", LINES, after)], reader({"a.py": after}))
    assert plan.restored == ["a.py"] and plan.changed_since == ()
    assert plan.result.files[0].after == LINES


def test_the_users_edits_elsewhere_in_the_file_stay() -> None:
    after = edit(LINES, "line 5\n", "line five\n")
    now = edit(after, "line 25\n", "line 25 (mine)\n")
    assert restored([Written("a.py", "a.py", LINES, after)], {"a.py": now})["a.py"] == edit(
        LINES, "line 25\n", "line 25 (mine)\n"
    )


def test_a_file_whose_written_lines_changed_since_is_left_and_named() -> None:
    after = edit(LINES, "line 5\n", "line five\n")
    now = edit(after, "line five\n", "line 5 (the user's own fix)\n")
    plan = plan_undo([Written("a.py", "a.py", LINES, after)], reader({"a.py": now}))
    assert plan.result.files == ()
    assert plan.changed_since == ("a.py",)
    assert "edited since" in plan.reasons["a.py"]
    assert "leaves a.py" in plan.describe()


def test_every_write_of_a_job_is_reversed_newest_first() -> None:
    first = edit(LINES, "line 5\n", "line five\n")
    second = edit(first, "line five\n", "line FIVE\n")
    third = edit(second, "line 20\n", "line twenty\n")
    writes = [
        Written("a.py", "a.py", LINES, first),
        Written("a.py", "a.py", first, second),
        Written("a.py", "a.py", second, third),
    ]
    assert restored(writes, {"a.py": third})["a.py"] == LINES


def test_a_file_is_restored_whole_or_not_at_all() -> None:
    """The newest write reverses, the oldest does not (the user changed its lines between
    the two): nothing of the file changes."""
    first = edit(LINES, "line 5\n", "line five\n")
    users = edit(first, "line five\n", "line 5!\n")
    second = edit(users, "line 20\n", "line twenty\n")
    writes = [Written("a.py", "a.py", LINES, first), Written("a.py", "a.py", users, second)]
    plan = plan_undo(writes, reader({"a.py": second}))
    assert plan.result.files == () and plan.changed_since == ("a.py",)


def test_a_created_file_is_removed_only_while_it_holds_what_the_job_wrote() -> None:
    writes = [Written("new.py", None, None, "x = 1\n")]
    plan = plan_undo(writes, reader({"new.py": "x = 1\n"}))
    assert [(f.path, f.change) for f in plan.result.files] == [("new.py", "delete")]
    kept = plan_undo(writes, reader({"new.py": "x = 1\ny = 2\n"}))
    assert kept.result.files == () and kept.changed_since == ("new.py",)


def test_a_deleted_file_comes_back_while_its_path_is_free() -> None:
    writes = [Written("old.py", "old.py", "a = 1\n", None)]
    plan = plan_undo(writes, reader({}))
    assert [(f.path, f.change, f.after) for f in plan.result.files] == [
        ("old.py", "create", "a = 1\n")
    ]
    taken = plan_undo(writes, reader({"old.py": "someone else's\n"}))
    assert taken.result.files == () and "exists again" in taken.reasons["old.py"]


def test_a_rename_is_undone_with_its_content() -> None:
    writes = [Written("b.py", "a.py", LINES, edit(LINES, "line 3\n", "line three\n"))]
    now: dict[str, str | None] = {"b.py": edit(LINES, "line 3\n", "line three\n")}
    out = restored(writes, now)
    assert out == {"b.py": None, "a.py": LINES}


def test_other_files_are_never_touched() -> None:
    after = edit(LINES, "line 5\n", "line five\n")
    plan = plan_undo(
        [Written("a.py", "a.py", LINES, after)], reader({"a.py": after, "b.py": "mine\n"})
    )
    assert plan.result.paths == ["a.py"]


def test_nothing_to_restore_when_the_file_is_back_already() -> None:
    after = edit(LINES, "line 5\n", "line five\n")
    plan = plan_undo([Written("a.py", "a.py", LINES, after)], reader({"a.py": LINES}))
    assert plan.result.files == () and plan.changed_since == ("a.py",)


class _Writer:
    def __init__(self, outcome: WriteOutcome) -> None:
        self.outcome = outcome

    def write(self, result: PatchResult) -> WriteOutcome:
        return self.outcome


def test_the_recording_writer_keeps_what_was_written() -> None:
    patch = PatchResult((FilePatch("a.py", "a.py", "a\n", "b\n"),))
    journal = WriteJournal()
    RecordingWriter(_Writer(WriteOutcome("rejected", "no")), journal).write(patch)
    RecordingWriter(_Writer(WriteOutcome("failed", "stale")), journal).write(patch)
    assert not journal
    RecordingWriter(_Writer(WriteOutcome("applied", "")), journal).write(patch)
    partial = (FilePatch("a.py", "a.py", "b\n", "b2\n"),)
    outcome = WriteOutcome("applied", "partially", written=partial)
    RecordingWriter(_Writer(outcome), journal).write(patch)
    assert journal.writes() == [
        Written("a.py", "a.py", "a\n", "b\n"),
        Written("a.py", "a.py", "b\n", "b2\n"),
    ]
    assert journal.paths() == ["a.py"]


def test_written_round_trips_through_json_and_refuses_junk() -> None:
    write = Written("b.py", "a.py", "x\n", None)
    assert Written.from_json(write.to_json()) == write
    for junk in (None, {}, {"path": 3}, {"path": "a", "before": 1}):
        with pytest.raises(ValueError):
            Written.from_json(junk)
