"""What the client can do, read once from its `initialize` capabilities (cheap to import:
the server parses this before it answers `initialize`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lsprotocol import types

from lsp_agent.agent.job_types import ClientInfo

JOB_CLIENT = ClientInfo("lsp")  # what the server's jobs are told of their front end
RESOURCE_OPERATIONS = frozenset({"create", "rename", "delete"})
APPROVAL_TIMEOUT_S = 600.0


def normalise_encoding(encoding: Any) -> str:
    """`utf-8`, `utf-16` or `utf-32` from a `PositionEncodingKind` (UTF-16 by default)."""
    text = str(getattr(encoding, "value", encoding) or "utf-16").lower()
    return text if text in ("utf-8", "utf-16", "utf-32") else "utf-16"


def _workspace_edit(
    capabilities: types.ClientCapabilities | None,
) -> types.WorkspaceEditClientCapabilities | None:
    workspace = capabilities.workspace if capabilities else None
    return workspace.workspace_edit if workspace else None


@dataclass(frozen=True)
class EditOptions:
    """What the client accepts in a `WorkspaceEdit`."""

    encoding: str = "utf-16"
    document_changes: bool = True
    resource_operations: frozenset[str] = RESOURCE_OPERATIONS
    change_annotations: bool = False

    @classmethod
    def from_capabilities(
        cls, capabilities: types.ClientCapabilities | None, encoding: Any = "utf-16"
    ) -> EditOptions:
        edit = _workspace_edit(capabilities)
        listed = edit.resource_operations or () if edit else ()
        operations = frozenset(str(getattr(op, "value", op)) for op in listed)
        return cls(
            encoding=normalise_encoding(encoding),
            # Resource operations only exist in documentChanges: a client that lists them
            # handles documentChanges (Neovim 0.7 advertises only resourceOperations).
            document_changes=bool(edit and (edit.document_changes or operations)),
            resource_operations=operations & RESOURCE_OPERATIONS,
            change_annotations=bool(edit and edit.change_annotation_support is not None),
        )


@dataclass(frozen=True)
class ApprovalOptions:
    """How this client approves: in its refactor preview, and whether it shows documents."""

    preview: bool = False
    show_document: bool = False
    timeout_s: float = APPROVAL_TIMEOUT_S

    @classmethod
    def from_capabilities(cls, capabilities: types.ClientCapabilities | None) -> ApprovalOptions:
        edit = _workspace_edit(capabilities)
        window = capabilities.window if capabilities else None
        show = window.show_document if window else None
        return cls(
            preview=bool(edit and edit.document_changes and edit.change_annotation_support),
            show_document=bool(show and show.support),
        )


def client_can_prompt(capabilities: types.ClientCapabilities | None, options: Any) -> bool:
    """True when the client prompts for the task of `Agent: ask…`: it advertises
    `experimental.lspAgent.prompt = true` or sends `initializationOptions`
    `lspAgent.clientCanPrompt = true`."""
    experimental = capabilities.experimental if capabilities else None
    if isinstance(experimental, dict):
        agent = experimental.get("lspAgent")
        if isinstance(agent, dict) and agent.get("prompt") is True:
            return True
    if isinstance(options, dict):
        nested = options.get("lspAgent")
        source = nested if isinstance(nested, dict) else options
        return source.get("clientCanPrompt") is True
    return False


@dataclass(frozen=True)
class ClientSetup:
    """Everything the server needs to know about the client."""

    edits: EditOptions = field(default_factory=EditOptions)
    approvals: ApprovalOptions = field(default_factory=ApprovalOptions)
    progress: bool = False
    can_prompt: bool = False
    # The client takes `client/registerCapability` for `textDocument/inlineCompletion`
    # (completions turned on by a settings change after start-up).
    inline_completion_registration: bool = False

    @classmethod
    def from_initialize(cls, params: types.InitializeParams, encoding: Any) -> ClientSetup:
        capabilities = params.capabilities
        window = capabilities.window if capabilities else None
        document = capabilities.text_document if capabilities else None
        inline = document.inline_completion if document else None
        return cls(
            edits=EditOptions.from_capabilities(capabilities, encoding),
            approvals=ApprovalOptions.from_capabilities(capabilities),
            progress=bool(window and window.work_done_progress),
            can_prompt=client_can_prompt(capabilities, params.initialization_options),
            inline_completion_registration=bool(inline and inline.dynamic_registration),
        )
