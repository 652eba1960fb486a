"""A model published in parts is joined atomically, checked by SHA-256, stamped, and refused
when wrong; without its parts the message says which extra to install."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

from lsp_agent.models.embedded import assembled
from lsp_agent.models.embedded.assembled import (
    QWEN_CODER_1_5B,
    AssembledModel,
    ModelFileError,
    PartsMissingError,
    assembly_state,
    ensure_assembled,
)
from lsp_agent.models.factory import build_model
from lsp_agent.settings import Settings

CHUNKS = [b"GGUF" + b"a" * 1000, b"b" * 777, b"c" * 5]


def fake_parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunks: list[bytes]) -> list[str]:
    """Packages `fakepartN` holding `data/partNN.bin`, importable from `tmp_path`."""
    names = []
    for index, chunk in enumerate(chunks, 1):
        package = tmp_path / "site" / f"fakepart{index}"
        (package / "data").mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / "data" / f"part{index:02d}.bin").write_bytes(chunk)
        names.append(f"fakepart{index}")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    for name in names:
        sys.modules.pop(name, None)
    return names


def spec_for(names: list[str], data: bytes) -> AssembledModel:
    return AssembledModel(
        name="fake-model",
        file_name="fake.gguf",
        parts=tuple(names),
        size=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        extra="fake",
    )


def test_parts_are_joined_once_checked_and_stamped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = b"".join(CHUNKS)
    spec = spec_for(fake_parts(tmp_path, monkeypatch, CHUNKS), data)
    target_dir = tmp_path / "models"
    assert "on first use" in assembly_state(spec, target_dir)
    path = ensure_assembled(spec, target_dir)
    assert path.read_bytes() == data and path.stat().st_mode & 0o777 != 0o600
    stamp = json.loads((target_dir / "fake.gguf.verified").read_text())
    assert stamp["sha256"] == spec.sha256 and stamp["size"] == len(data)
    assert [p.name for p in target_dir.iterdir()] == sorted(["fake.gguf", "fake.gguf.verified"])
    hashed: list[Path] = []
    monkeypatch.setattr(assembled, "_hash_file", lambda p: hashed.append(p) or spec.sha256)
    assert ensure_assembled(spec, target_dir) == path and hashed == []  # the stamp holds
    assert assembly_state(spec, target_dir) == f"at {path}"


def test_a_changed_file_is_hashed_again_and_assembled_anew(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = b"".join(CHUNKS)
    spec = spec_for(fake_parts(tmp_path, monkeypatch, CHUNKS), data)
    path = ensure_assembled(spec, tmp_path / "models")
    path.write_bytes(b"X" * len(data))  # same size, other bytes, new modification time
    assert ensure_assembled(spec, tmp_path / "models").read_bytes() == data


def test_wrong_parts_leave_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = spec_for(fake_parts(tmp_path, monkeypatch, CHUNKS), b"".join(reversed(CHUNKS)))
    with pytest.raises(ModelFileError, match="not the recorded"):
        ensure_assembled(spec, tmp_path / "models")
    assert list((tmp_path / "models").iterdir()) == []  # no half-written or wrong file


def test_missing_parts_name_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, QWEN_CODER_1_5B.parts[0], None)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    with pytest.raises(PartsMissingError, match=r"uv sync --extra qwen"):
        assembly_state(QWEN_CODER_1_5B)
    with pytest.raises(PartsMissingError, match=r"pip install 'lsp-agent\[qwen\]'"):
        build_model(Settings(model_id="embedded:qwen2.5-coder-1.5b").model_config())


def test_the_recorded_qwen_file() -> None:
    assert QWEN_CODER_1_5B.size == 1_117_320_768 and len(QWEN_CODER_1_5B.parts) == 22
    assert QWEN_CODER_1_5B.sha256.startswith("cc324af070c2")
