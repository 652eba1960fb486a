"""lsp_agent/agent/import_slices.py: the warm-up's imports and JSON in preemptible slices."""

from __future__ import annotations

import gc
import io
import json
import sys
import threading

from lsp_agent.agent.import_slices import collection_paused, preemptible_json, yielding_imports

DATA = {"a": [1, 2.5, None, True, "é\u2028"], "b": {"c": "x" * 10}}


def test_pause_runs_before_each_new_import_of_this_thread_only() -> None:
    paused: list[str] = []
    sys.modules.pop("colorsys", None)
    sys.modules.pop("this_module_does_not_exist_either", None)
    with yielding_imports(lambda: paused.append(threading.current_thread().name)):
        import colorsys  # noqa: F401

        def other() -> None:
            sys.modules.pop("wave", None)
            import wave  # noqa: F401

        thread = threading.Thread(target=other, name="other")
        thread.start()
        thread.join()
    assert paused and set(paused) == {threading.current_thread().name}
    assert not any(type(f).__name__ == "_PauseBeforeImport" for f in sys.meta_path)


def test_plain_json_calls_give_the_same_results_in_pure_python() -> None:
    text = json.dumps(DATA)
    standard = json.loads
    with preemptible_json():
        assert json.loads is not standard
        assert json.loads(text) == DATA
        assert json.loads(text.encode()) == DATA
        assert json.load(io.StringIO(text)) == DATA
        assert json.dumps(DATA) == text
        assert json.dumps(DATA, indent=1) == json.JSONEncoder(indent=1).encode(DATA)
        seen: list[object] = []
        assert json.loads(text, object_hook=lambda o: seen.append(o) or o) == DATA
        assert seen  # options go to the standard functions
    assert json.loads(text) == DATA and json.dumps(DATA) == text


def test_only_the_entering_thread_uses_the_python_paths() -> None:
    used: list[bool] = []
    with preemptible_json():
        patched = json.loads

        def other() -> None:
            used.append(json.loads("[1]") == [1])

        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
        assert patched is json.loads
    assert used == [True]


def test_no_collection_while_importing_then_the_imports_are_frozen() -> None:
    frozen = gc.get_freeze_count()
    with collection_paused():
        assert not gc.isenabled()
        made = [[] for _ in range(1000)]
    assert gc.isenabled()
    assert gc.get_freeze_count() >= frozen + len(made)
    gc.unfreeze()  # other tests expect a normal collector
