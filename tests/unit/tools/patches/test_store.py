"""PatchStore: ids, status transitions, thread safety, staleness and rebase."""

from __future__ import annotations

import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

from lsp_agent.testing.calc_repo import BROKEN_CALC_DIFF
from safety.errors import ErrorType
from tools.patches import PatchError, PatchResult, apply_diff
from tools.patches.store import (
    PatchStateError,
    PatchStore,
    StoredPatch,
    UnknownPatchError,
    content_hash,
    is_stale,
    next_step,
    normalise_id,
    not_a_fix,
    rebase,
)
from tools.workspace import DiskWorkspace, OverlayWorkspace

DIFF = BROKEN_CALC_DIFF


def proposed(tmp_repo: Path, store: PatchStore, diff: str = DIFF) -> StoredPatch:
    return store.add(diff, apply_diff(diff, DiskWorkspace(tmp_repo)), check={"ok": True})


def test_ids_fields_and_lookup(tmp_repo: Path) -> None:
    store = PatchStore()
    assert store.latest() is None
    assert store.summary() == "no patches"
    first = proposed(tmp_repo, store)
    second = proposed(tmp_repo, store)
    assert (first.id, second.id) == ("p1", "p2")
    assert first.status == "proposed"
    assert first.files == ["pkg/calc.py"]
    assert first.check == {"ok": True}
    assert first.diff == DIFF
    assert first.created <= second.created
    assert store.latest() == second
    for key in ("p1", " P1 ", "1", 1, "'p1'"):
        assert store.get(key) == first
    assert store.all() == [first, second]


def test_unknown_id_lists_known_ids(tmp_repo: Path) -> None:
    store = PatchStore()
    with pytest.raises(UnknownPatchError, match="none yet"):
        store.get("p1")
    proposed(tmp_repo, store)
    proposed(tmp_repo, store)
    with pytest.raises(KeyError) as info:
        store.get("p9")
    assert str(info.value) == "There is no patch 'p9'. Known patch ids: p1, p2."
    assert isinstance(info.value, PatchError)
    assert info.value.to_error("apply_patch")["error"] == ErrorType.INVALID_ARGUMENT


def test_content_hash_is_of_the_canonical_diff(tmp_repo: Path) -> None:
    store = PatchStore()
    a = proposed(tmp_repo, store)
    sloppy = DIFF.replace("@@ -1,2 +1,2 @@", "@@ -1,7 +1,9 @@")
    b = proposed(tmp_repo, store, sloppy)
    assert a.content_hash == b.content_hash == content_hash(a.result)
    assert len(a.content_hash) == 64
    other = DIFF.replace("a - b", "a * b")
    assert proposed(tmp_repo, store, other).content_hash != a.content_hash


@pytest.mark.parametrize("final", ["applied", "rejected", "failed"])
def test_status_transitions(tmp_repo: Path, final: str) -> None:
    store = PatchStore()
    patch = proposed(tmp_repo, store)
    done = store.set_status(patch.id, final, "because")  # type: ignore[arg-type]
    assert (done.status, done.reason) == (final, "because")
    assert patch.status == "proposed"  # stored patches are immutable snapshots
    assert store.get("p1").status == final
    with pytest.raises(PatchStateError, match=f"p1 is {final}; it cannot become applied"):
        store.set_status("p1", "applied")


def test_stale_can_be_rebased_or_given_up(tmp_repo: Path) -> None:
    store = PatchStore()
    proposed(tmp_repo, store)
    store.set_status("p1", "stale", "pkg/calc.py changed")
    with pytest.raises(PatchStateError):
        store.set_status("p1", "stale")
    fresh = apply_diff(DIFF, DiskWorkspace(tmp_repo))
    rebased = store.update_result("p1", fresh, check="new check")
    assert (rebased.status, rebased.check) == ("proposed", "new check")
    store.set_status("p1", "applied")
    with pytest.raises(PatchStateError, match="only a proposed or stale"):
        store.update_result("p1", fresh)


def test_summary_is_one_line_per_patch(tmp_repo: Path) -> None:
    store = PatchStore()
    proposed(tmp_repo, store)
    create = "--- /dev/null\n+++ b/docs/a.md\n@@ -0,0 +1 @@\n+hi\n"
    proposed(tmp_repo, store, DIFF + create)
    store.set_status("p1", "rejected", "by the user")
    assert store.summary() == (
        "p1: pkg/calc.py [rejected] by the user\np2: pkg/calc.py, docs/a.md [proposed]"
    )


def test_thread_safe_ids(tmp_repo: Path) -> None:
    store = PatchStore()
    result = apply_diff(DIFF, DiskWorkspace(tmp_repo))
    ids: list[str] = []
    lock = threading.Lock()

    def worker() -> None:
        for _ in range(50):
            patch = store.add(DIFF, result)
            store.set_status(patch.id, "rejected")
            with lock:
                ids.append(patch.id)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(ids, key=lambda i: int(i[1:])) == [f"p{n}" for n in range(1, 401)]
    assert all(p.status == "rejected" for p in store.all())


def test_normalise_id() -> None:
    assert [normalise_id(x) for x in ("p3", " P3 ", "3", 3, '"p3"')] == ["p3"] * 5


# --- staleness and rebase ---------------------------------------------------------


def test_disk_edit_makes_a_patch_stale(tmp_repo: Path) -> None:
    patch = proposed(tmp_repo, PatchStore())
    ws = DiskWorkspace(tmp_repo)
    assert is_stale(patch, ws) == []
    (tmp_repo / "pkg" / "calc.py").write_text("# edited\ndef add(a, b):\n    return a + b\n")
    assert is_stale(patch, ws) == ["pkg/calc.py"]
    (tmp_repo / "pkg" / "calc.py").unlink()
    assert is_stale(patch, ws) == ["pkg/calc.py"]


def test_editor_version_change_makes_a_patch_stale(tmp_repo: Path) -> None:
    text = (tmp_repo / "pkg" / "calc.py").read_text()
    docs = {"pkg/calc.py": (text, 3)}
    ws = OverlayWorkspace(tmp_repo, lambda: docs)
    store = PatchStore()
    patch = store.add(DIFF, apply_diff(DIFF, ws))
    assert patch.result.files[0].base_version == 3
    assert is_stale(patch, ws) == []
    docs["pkg/calc.py"] = (text, 4)  # same text, new version: the editor edit would fail
    assert is_stale(patch, ws) == ["pkg/calc.py"]


def test_created_and_renamed_files_go_stale_when_the_target_appears(tmp_repo: Path) -> None:
    diff = (
        "--- /dev/null\n+++ b/new.py\n@@ -0,0 +1 @@\n+x = 1\n"
        "diff --git a/pkg/calc.py b/pkg/maths.py\nrename from pkg/calc.py\nrename to pkg/maths.py\n"
    )
    patch = proposed(tmp_repo, PatchStore(), diff)
    ws = DiskWorkspace(tmp_repo)
    assert is_stale(patch, ws) == []
    (tmp_repo / "new.py").write_text("")
    (tmp_repo / "pkg" / "maths.py").write_text("")
    assert is_stale(patch, ws) == ["new.py", "pkg/maths.py"]


def test_rebase_onto_an_unrelated_edit(tmp_repo: Path) -> None:
    patch = proposed(tmp_repo, PatchStore())
    edited = "import math\n\n\ndef add(a, b):\n    return a + b\n"
    (tmp_repo / "pkg" / "calc.py").write_text(edited)
    result = rebase(patch, DiskWorkspace(tmp_repo))
    assert isinstance(result, PatchResult)
    assert result.files[0].before == edited
    assert result.files[0].after == edited.replace("a + b", "a - b")


def test_rebase_onto_a_conflicting_edit(tmp_repo: Path) -> None:
    patch = proposed(tmp_repo, PatchStore())
    (tmp_repo / "pkg" / "calc.py").write_text("def add(a, b):\n    return sum((a, b))\n")
    result = rebase(patch, DiskWorkspace(tmp_repo))
    assert isinstance(result, PatchError)
    assert result.kind == ErrorType.PATCH_DOES_NOT_APPLY
    assert result.hunk == 1
    assert "2 |     return sum((a, b))" in result.current


def test_next_step_never_offers_a_patch_that_cannot_be_applied() -> None:
    assert next_step("p1", "proposed") == 'Next: apply it with apply_patch(patch_id="p1").'
    # a patch whose check broke passing tests is not offered for applying
    broke = SimpleNamespace(check_status="failed", fixed=(), broken=("t::a",))
    note = next_step("p1", "proposed", broke)
    assert "broke 1 passing tests: do not apply it" in note and "apply_patch(" not in note
    assert "final_answer" not in note  # a small model takes the way out it is offered
    passed = SimpleNamespace(check_status="passed", fixed=("t::a",), broken=())
    assert "apply_patch(" in next_step("p1", "proposed", passed)
    assert "final_answer" in next_step("p1", "applied")
    # a patch after which every failing test fails as before is no fix
    same = SimpleNamespace(
        check_status="passed", fixed=(), broken=(), still_failing=("t::average",)
    )
    note = next_step("p1", "proposed", same)
    assert note.startswith("p1 fixes none of the 1 failing tests: they fail as before.")
    assert "do not apply it" in note and "propose a different change" in note
    assert "apply_patch(" not in note  # a small model copies a call it is shown
    some = SimpleNamespace(
        check_status="passed", fixed=("t::a",), broken=(), still_failing=("t::b",)
    )
    assert next_step("p1", "proposed", some) == 'Next: apply it with apply_patch(patch_id="p1").'
    # applied while tests still fail: said, with the first failure, so the work goes on
    pytest_output = (
        "____ SayTest.test_one ____\n\n>   return ones[n]\n"
        "E   NameError: name 'ones' is not defined\n\nsay.py:2: NameError\n"
    )
    some.output = pytest_output  # type: ignore[attr-defined]
    assert next_step("p1", "applied", some) == (
        "1 tests still fail with the patch (first: SayTest.test_one: `return ones[n]`: "
        "NameError: name 'ones' is not defined (say.py line 2)). Next: change the code again "
        "so that they pass."
    )
    for status in ("rejected", "failed", "stale"):
        note = next_step("p2", status)
        assert "apply_patch" not in note and "do not apply it again" in note, status
        assert "p2" in note and "final_answer" in note, status
    assert "the user rejected p2" in next_step("p2", "rejected")
    assert "propose a different change" in next_step("p2", "rejected")
    assert "propose a new patch" in next_step("p2", "stale")


def test_facts_say_what_the_run_did_to_the_files(tmp_repo: Path) -> None:
    from sandbox.protocol import PatchCheck

    store = PatchStore()
    assert store.facts() == ["No file was changed: no patch was applied."]
    passed = PatchCheck(True, True, "", 0.1, fixed=("tests/test_calc.py::test_add",))
    applied = store.add(DIFF, apply_diff(DIFF, DiskWorkspace(tmp_repo)), check=passed)
    store.set_status(applied.id, "applied")
    left = proposed(tmp_repo, store)
    refused = proposed(tmp_repo, store)
    store.set_status(refused.id, "rejected", "the user said no.")
    assert store.facts() == [
        "Applied p1 to pkg/calc.py; check passed (fixed 1, broke 0 tests).",
        f"{left.id} (pkg/calc.py) was proposed, not applied.",
        "p3 (pkg/calc.py) was rejected: the user said no.",
    ]


def test_a_no_fix_names_the_code_to_change_and_the_first_failures_not_a_file_to_read() -> None:
    output = (
        "____ SayTest.test_fourteen ____\n\n>   return ones[n]\n"
        "E   IndexError: list index out of range\n\nsay.py:4: IndexError\n"
    )
    same = SimpleNamespace(
        check_status="passed", fixed=(), broken=(), still_failing=("t::a",), output=output
    )
    note = next_step("p3", "proposed", same, ["say.py", "say_test.py"])
    assert note == (
        "p3 fixes none of the 1 failing tests: they fail as before (first: "
        "SayTest.test_fourteen: `return ones[n]`: IndexError: list index out of range (say.py "
        "line 4)). If the task is to make them pass, do not apply it. Next: propose a different "
        "change to say.py: the tests are right, the code they call is not."
    )
    broke = SimpleNamespace(check_status="failed", fixed=(), broken=("t::b",), output="")
    assert not_a_fix("p4", broke, ["tests/test_calc.py", "calc.py"]) == (
        "p4's check broke 1 passing tests: do not apply it. Next: propose a different change "
        "to calc.py, one that keeps the passing tests passing."
    )
