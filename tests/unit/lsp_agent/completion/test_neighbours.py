"""Context from other files: the most recent ones, around their last edit, never secrets."""

from __future__ import annotations

from lsp_agent.completion.config import CompletionConfig
from lsp_agent.completion.neighbours import OpenDocument, RecentFiles

CONFIG = CompletionConfig(model_id="embedded", extra_files=2, extra_chars=40)


def doc(path: str | None, count: int = 50) -> OpenDocument:
    return OpenDocument(path, [f"{path}:{i}" for i in range(count)])


def test_the_most_recent_other_documents_around_their_last_edit() -> None:
    recent = RecentFiles()
    docs = {"a": doc("a.py"), "b": doc("b.py"), "c": doc("c.py"), "me": doc("me.py")}
    for uri in ("a", "b", "c", "me"):
        recent.touch(uri, 0)
    recent.touch("b", 30)
    chunks = recent.chunks("me", docs, CONFIG)
    assert [c.path for c in chunks] == ["c.py", "b.py"]  # oldest first, newest nearest the cursor
    assert "b.py:30" in chunks[1].text and len(chunks[1].text) <= 40
    assert chunks[1].text.endswith("\n")


def test_secrets_and_files_outside_the_workspace_are_never_sent() -> None:
    recent = RecentFiles()
    docs = {"env": doc(".env"), "key": doc("deploy/id_rsa"), "out": doc(None), "me": doc("me.py")}
    for uri in docs:
        recent.touch(uri, 0)
    assert recent.chunks("me", docs, CONFIG) == ()


def test_closed_documents_are_forgotten() -> None:
    recent = RecentFiles()
    docs = {"a": doc("a.py"), "me": doc("me.py")}
    recent.touch("a", 0)
    recent.forget("a")
    assert recent.chunks("me", docs, CONFIG) == ()
