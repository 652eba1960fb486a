"""Tests for the approval store (safety.approvals)."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from safety.approvals import ApprovalKind, ApprovalStore, Status, content_hash

PATCH = ApprovalKind.PATCH
COMMAND = ApprovalKind.COMMAND
DIFF = "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n"


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


def test_request_and_approve_is_single_use() -> None:
    store = ApprovalStore()
    req = store.request(PATCH, DIFF, summary="change x.py")
    assert not store.is_approved(PATCH, DIFF)
    assert store.pending() == [req]
    outcome = store.approve(req.id, by="alice")
    assert outcome.approved and outcome.status is Status.APPROVED and outcome.by == "alice"
    assert store.is_approved(PATCH, DIFF)
    assert store.consume(PATCH, DIFF)
    assert not store.consume(PATCH, DIFF)
    assert not store.is_approved(PATCH, DIFF)
    assert store.pending() == []


def test_approval_covers_exactly_what_was_shown() -> None:
    store = ApprovalStore()
    req = store.request(PATCH, DIFF)
    store.approve(req.id)
    changed = DIFF.replace("+b", "+c")
    assert not store.is_approved(PATCH, changed)
    assert not store.consume(PATCH, changed)
    assert not store.is_approved(COMMAND, DIFF)
    assert not store.is_approved(PATCH, DIFF, workspace="/other")
    assert req.content_hash == content_hash(PATCH, DIFF)


def test_reject() -> None:
    store = ApprovalStore()
    req = store.request(COMMAND, "rm -rf build")
    outcome = store.reject(req.id, "not now", by="bob")
    assert outcome.status is Status.REJECTED and not outcome.approved and outcome.rejected
    assert outcome.reason == "not now"
    assert not store.is_approved(COMMAND, "rm -rf build")
    assert store.wait(req.id, 0.01) == outcome


def test_wait_timeout_is_a_rejection() -> None:
    store = ApprovalStore()
    req = store.request(PATCH, DIFF)
    start = time.monotonic()
    outcome = store.wait(req.id, 0.05)
    assert time.monotonic() - start >= 0.04
    assert outcome.status is Status.TIMED_OUT and not outcome.approved and outcome.rejected
    assert "no answer" in outcome.reason
    late = store.approve(req.id)
    assert late.status is Status.TIMED_OUT
    assert not store.is_approved(PATCH, DIFF)
    assert store.audit()[-1].action == "late answer ignored"


def test_wait_is_answered_from_another_thread() -> None:
    store = ApprovalStore()
    req = store.request(PATCH, DIFF)
    results = []

    def agent() -> None:
        results.append(store.wait(req.id, 5.0))

    thread = threading.Thread(target=agent)
    thread.start()
    time.sleep(0.05)
    store.approve(req.id, by="editor")
    thread.join(2.0)
    assert not thread.is_alive()
    assert results and results[0].approved and results[0].by == "editor"


def test_many_threads() -> None:
    store = ApprovalStore()
    requests = [store.request(COMMAND, f"cmd {i}") for i in range(20)]
    outcomes: dict[str, bool] = {}
    lock = threading.Lock()

    def waiter(request_id: str) -> None:
        result = store.wait(request_id, 5.0)
        with lock:
            outcomes[request_id] = result.approved

    threads = [threading.Thread(target=waiter, args=(r.id,)) for r in requests]
    for t in threads:
        t.start()
    for i, req in enumerate(requests):
        if i % 2:
            store.approve(req.id)
        else:
            store.reject(req.id, "no")
    for t in threads:
        t.join(5.0)
    assert len(outcomes) == 20
    assert sum(outcomes.values()) == 10


def test_unknown_request_is_a_bug() -> None:
    store = ApprovalStore()
    with pytest.raises(KeyError):
        store.approve("a999")
    with pytest.raises(KeyError):
        store.wait("a999", 0.01)


def test_double_answer_keeps_the_first() -> None:
    store = ApprovalStore()
    req = store.request(PATCH, DIFF)
    store.reject(req.id, "no")
    assert store.approve(req.id).status is Status.REJECTED
    assert store.outcome(req.id) is not None


def test_always_rule_persisted_with_expiry(tmp_path: Path) -> None:
    clock = Clock()
    rules = tmp_path / "approvals.json"
    store = ApprovalStore(rules_file=rules, clock=clock, always_ttl_s=3600)
    req = store.request(COMMAND, "make lint", workspace="/ws")
    store.approve(req.id, by="alice", always=True)
    data = json.loads(rules.read_text())
    assert data["version"] == 1
    (entry,) = data["rules"]
    assert entry["command"] == "make lint" and entry["workspace"] == "/ws"
    assert entry["approved_by"] == "alice"
    assert entry["expires_at"].startswith("2023-11-14T23:13:20")

    again = ApprovalStore(rules_file=rules, clock=clock)
    assert again.is_approved(COMMAND, "make lint", workspace="/ws")
    assert not again.is_approved(COMMAND, "make lint", workspace="/other")
    assert not again.is_approved(COMMAND, "make lint --fix", workspace="/ws")
    req2 = again.request(COMMAND, "make lint", workspace="/ws")
    assert again.outcome(req2.id) is not None and again.wait(req2.id, 0).approved
    assert again.consume(COMMAND, "make lint", workspace="/ws")
    assert again.consume(COMMAND, "make lint", workspace="/ws")

    clock.now += 3601
    assert not again.is_approved(COMMAND, "make lint", workspace="/ws")
    expired = ApprovalStore(rules_file=rules, clock=clock)
    assert expired.always_rules() == []


def test_always_rule_revoke(tmp_path: Path) -> None:
    rules = tmp_path / "approvals.json"
    store = ApprovalStore(rules_file=rules)
    req = store.request(COMMAND, "pytest -q", workspace="/ws")
    store.approve(req.id, always=True)
    assert len(store.always_rules()) == 1
    assert store.revoke_always("pytest -q", "/ws")
    assert not store.revoke_always("pytest -q", "/ws")
    assert json.loads(rules.read_text())["rules"] == []


def test_always_rule_needs_a_command_in_a_workspace() -> None:
    store = ApprovalStore()
    patch = store.request(PATCH, DIFF, workspace="/ws")
    with pytest.raises(ValueError):
        store.approve(patch.id, always=True)
    command = store.request(COMMAND, "ls")
    with pytest.raises(ValueError):
        store.approve(command.id, always=True)


def test_tampered_rules_file_entries_are_ignored(tmp_path: Path) -> None:
    rules = tmp_path / "approvals.json"
    rules.write_text(
        json.dumps(
            {
                "version": 1,
                "rules": [
                    {
                        "command": "rm -rf /",
                        "workspace": "/ws",
                        "content_hash": "0" * 64,
                        "created_at": "2020-01-01T00:00:00+00:00",
                        "expires_at": "2999-01-01T00:00:00+00:00",
                    },
                    {"command": "x"},
                ],
            }
        )
    )
    store = ApprovalStore(rules_file=rules)
    assert store.always_rules() == []
    rules.write_text("not json")
    broken = ApprovalStore(rules_file=rules)
    assert broken.always_rules() == []
    assert broken.audit()[0].action == "rules file ignored"


def test_audit_trail_records_who_what_when() -> None:
    clock = Clock()
    store = ApprovalStore(clock=clock)
    req = store.request(PATCH, DIFF, summary="edit x", requested_by="agent")
    clock.now += 5
    store.approve(req.id, by="alice")
    store.consume(PATCH, DIFF, by="apply_patch")
    trail = store.audit()
    assert [(e.who, e.action) for e in trail] == [
        ("agent", "requested"),
        ("alice", "approved"),
        ("apply_patch", "used"),
    ]
    assert trail[0].at == 1_700_000_000.0 and trail[1].at == 1_700_000_005.0
    assert all(e.content_hash == req.content_hash for e in trail)
    assert trail[0].detail == "edit x" and trail[0].kind == "patch"


def test_an_always_rule_covers_its_own_kind_only(tmp_path):
    """Issue 28, finding 8: "always allow" for an MCP call once covered a `run_cmd` of the
    same text (the rule was keyed by text); a sandbox command's rule never covers a host run."""
    store = ApprovalStore(rules_file=tmp_path / "rules.json")
    text = 'mcp files add {"a": 1}'
    req = store.request(ApprovalKind.MCP_CALL, text, workspace="/ws")
    store.approve(req.id, always=True)
    assert store.is_approved(ApprovalKind.MCP_CALL, text, workspace="/ws")
    assert not store.is_approved(ApprovalKind.COMMAND, text, workspace="/ws")
    again = ApprovalStore(rules_file=tmp_path / "rules.json")  # the file keeps the kind
    answered = again.outcome(again.request(ApprovalKind.MCP_CALL, text, workspace="/ws").id)
    assert answered is not None and answered.approved
    assert again.outcome(again.request(ApprovalKind.COMMAND, text, workspace="/ws").id) is None
    command = store.request(ApprovalKind.COMMAND, "pytest -q", workspace="/ws")
    store.approve(command.id, always=True)
    host = store.request(ApprovalKind.HOST_COMMAND, "pytest -q", workspace="/ws")
    assert store.outcome(host.id) is None  # asked: the sandbox rule does not cover it
    with pytest.raises(ValueError, match="always-rules"):
        store.approve(host.id, always=True)
