"""A file the client embeds in a prompt reaches the model as `read_file` would show it
(issue 28, low): secrets redacted, a sensitive file not at all."""

from __future__ import annotations

import json
from pathlib import Path

from lsp_agent.testing import ScriptedOpenAIServer
from tests.acp.conftest import agent_env, run_client

TOKEN = "ghp_Zq8Lm2Xv7Tn4Kp1Rw9Ys3Hd6Fj0Gb5Nc8Vx2Qe"


def resource(path: Path, text: str) -> dict[str, object]:
    return {"type": "resource", "resource": {"uri": path.as_uri(), "text": text}}


def test_embedded_resources_are_redacted_and_sensitive_ones_left_out(
    acp_client: Path, tmp_path: Path, workspace: Path
) -> None:
    blocks = [
        resource(workspace / "settings.py", f'GITHUB = "{TOKEN}"\nDEBUG = True\n'),
        resource(workspace / ".env", "DB_PASSWORD=correct-horse-battery\n"),
        resource(workspace / "notes.txt", "-----BEGIN PRIVATE KEY-----\nMIIEsecretbody\n"),
    ]
    with ScriptedOpenAIServer([{"final_answer": "read"}]) as model:
        env = {
            **agent_env(tmp_path, []),
            "MODEL_ID": "openai/scripted",
            "MODEL_API_BASE": model.openai_base,
        }
        scenario = {
            "cwd": str(workspace),
            "env": env,
            "fs": {"read": True, "write": True},
            "prompts": [{"text": "look at these", "blocks": blocks}],
        }
        out = run_client(acp_client, tmp_path, scenario)
        sent = json.dumps(model.chat_requests)
    assert out["turns"][0]["response"] == {"stopReason": "end_turn"}, out
    assert TOKEN not in sent and "correct-horse-battery" not in sent
    assert "DEBUG = True" in sent and "[REDACTED]" in sent
    assert "MIIEsecretbody" not in sent
    assert "is not shown: it is a sensitive file" in sent
