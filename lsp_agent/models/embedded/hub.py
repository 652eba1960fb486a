"""`embedded:hf:<owner>/<repo>/<file.gguf>`: a GGUF file from the Hugging Face Hub.

Downloaded once by `huggingface_hub` into its own cache (`HF_HOME`, `HF_HUB_CACHE`), which
also decides where it comes from: `HF_ENDPOINT` (a mirror, an internal hub) and `HF_TOKEN`
are honoured as for every Hugging Face tool, and `HF_HUB_OFFLINE=1` uses the cache only.
These are read from the process environment, never from a workspace's files.
"""

from __future__ import annotations

from pathlib import Path

from lsp_agent.models.errors import ModelConfigError

__all__ = ["HUB_PREFIX", "HubModelError", "hub_gguf", "parse_hub_name"]

HUB_PREFIX = "hf:"


class HubModelError(ModelConfigError):
    """The file could not be had from the hub."""


def parse_hub_name(name: str) -> tuple[str, str]:
    """`hf:owner/repo/path/file.gguf` -> (`owner/repo`, `path/file.gguf`)."""
    rest = name.removeprefix(HUB_PREFIX)
    owner, _, tail = rest.partition("/")
    repo, _, filename = tail.partition("/")
    if not owner or not repo or not filename.endswith(".gguf"):
        raise HubModelError(
            f"embedded:{name}: expected embedded:hf:<owner>/<repo>/<file.gguf>, "
            "e.g. embedded:hf:Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF/"
            "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
        )
    return f"{owner}/{repo}", filename


def hub_gguf(name: str) -> Path:
    """The local path of the hub file `name` (downloaded on first use)."""
    repo_id, filename = parse_hub_name(name)
    try:
        from huggingface_hub import hf_hub_download
        from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError
    except ImportError as exc:  # pragma: no cover - a dependency of smolagents
        raise HubModelError(f"embedded:{name} needs huggingface_hub: {exc}") from exc
    try:
        return Path(hf_hub_download(repo_id=repo_id, filename=filename))
    except LocalEntryNotFoundError as exc:
        raise HubModelError(
            f"embedded:{name}: not in the local cache and the hub cannot be reached "
            f"({exc}); check HF_ENDPOINT and your network, or unset HF_HUB_OFFLINE"
        ) from exc
    except HfHubHTTPError as exc:
        raise HubModelError(f"embedded:{name}: the hub refused the download: {exc}") from exc
    except OSError as exc:
        raise HubModelError(f"embedded:{name}: the download failed: {exc}") from exc
