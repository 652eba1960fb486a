"""`embedded:hf:<owner>/<repo>/<file.gguf>`: downloaded through huggingface_hub from
HF_ENDPOINT (here a stub hub on 127.0.0.1 serving SmolLM2's file; never the internet), cached
in HF_HOME, then loaded and used like any embedded model."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from lsp_agent.models.embedded.hub import HubModelError, parse_hub_name
from lsp_agent.models.embedded.loader import embedded_gguf
from tests.http_stub import serving

REPO, FILE = "stub-owner/tiny-gguf", "SmolLM2-135M-Instruct.Q4_1.gguf"
COMMIT = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture(scope="module")
def hub() -> Iterator[tuple[str, list[str]]]:
    gguf = embedded_gguf("embedded")
    data = gguf.read_bytes()
    etag = hashlib.sha256(data).hexdigest()
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def _headers(self) -> bool:
            seen.append(f"{self.command} {self.path}")
            if self.path != f"/{REPO}/resolve/main/{FILE}":
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return False
            self.send_response(200)
            self.send_header("X-Repo-Commit", COMMIT)
            self.send_header("ETag", f'"{etag}"')
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            return True

        def do_HEAD(self) -> None:
            self._headers()

        def do_GET(self) -> None:
            if self._headers():
                self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            return

    with serving(Handler) as base:
        yield base, seen


SCRIPT = """
import sys
from smolagents import FinalAnswerTool
from lsp_agent.models.factory import build_model
from lsp_agent.settings import Settings
settings = Settings(model_id=sys.argv[1], model_max_tokens=64, model_num_ctx=1024)
model = build_model(settings.model_config())
reply = model.generate([{"role": "user", "content": "hi"}], tools_to_call_from=[FinalAnswerTool()])
print(reply.raw["text"].startswith('{"name": "final_answer"'))
"""


@pytest.fixture
def hub_env(hub: tuple[str, list[str]], tmp_path: Path) -> dict[str, str]:
    """The environment that points the Hugging Face client at the stub hub (cache in tmp)."""
    return {
        "HF_ENDPOINT": hub[0],
        "HF_HOME": str(tmp_path / "hf"),
        "HF_HUB_DISABLE_XET": "1",
        "HF_HUB_OFFLINE": "0",
        # a busy machine (the stub answers from this process) must not look like no network
        "HF_HUB_ETAG_TIMEOUT": "120",
        "HF_HUB_DOWNLOAD_TIMEOUT": "120",
    }


def run(model_id: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", SCRIPT, model_id],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **env},
    )


def test_a_hub_model_comes_from_hf_endpoint_and_is_cached(
    hub: tuple[str, list[str]], hub_env: dict[str, str], tmp_path: Path
) -> None:
    seen = hub[1]
    done = run(f"embedded:hf:{REPO}/{FILE}", hub_env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "True"  # the model wrote a call with it
    assert f"GET /{REPO}/resolve/main/{FILE}" in seen
    cached = list((tmp_path / "hf").rglob(FILE))
    assert cached and cached[0].stat().st_size == embedded_gguf("embedded").stat().st_size
    seen.clear()
    offline = run(f"embedded:hf:{REPO}/{FILE}", {**hub_env, "HF_HUB_OFFLINE": "1"})
    assert offline.returncode == 0 and seen == []  # the cache serves it


def test_an_unknown_hub_file_fails_with_a_clear_message(hub_env: dict[str, str]) -> None:
    done = run(f"embedded:hf:{REPO}/missing.gguf", hub_env)
    assert done.returncode != 0
    assert "embedded:hf:stub-owner/tiny-gguf/missing.gguf" in done.stderr


def test_hub_names_are_owner_repo_and_a_gguf_file() -> None:
    assert parse_hub_name("hf:Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF/q4.gguf") == (
        "Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF",
        "q4.gguf",
    )
    with pytest.raises(HubModelError, match=r"embedded:hf:<owner>/<repo>/<file\.gguf>"):
        parse_hub_name("hf:just-a-repo")
