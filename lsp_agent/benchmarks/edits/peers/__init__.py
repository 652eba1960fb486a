"""The peers `bench edits` compares with: aider and mini-swe-agent, each from its own
environment (`environment`), each run in a throwaway container (`runner`, `peer_driver`)."""

from lsp_agent.benchmarks.edits.peers.environment import (
    PEERS,
    PeerEnvironmentError,
    PeerSpec,
    ensure_environment,
)
from lsp_agent.benchmarks.edits.peers.on_exercise import run_peer_on

__all__ = ["PEERS", "PeerEnvironmentError", "PeerSpec", "ensure_environment", "run_peer_on"]
