"""Walk a tree-sitter bash syntax tree and collect its simple commands."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from tree_sitter import Node, Tree

from safety.policy.shell.model import (
    EXPANSION,
    Redirect,
    SimpleCommand,
    inline_script,
    program_name,
)
from safety.policy.shell.nodes import (
    ARITHMETIC,
    arithmetic_on_variables,
    error_text,
    is_arithmetic,
    too_deep,
    word_spans_lines,
)
from safety.policy.shell.word_nodes import read_word
from safety.policy.shell.words import Word

MAX_DEPTH = 6
MAX_SYNTAX_NODES = 1500
MAX_PIPES = 200
"""tree-sitter-bash parses a pipeline in time quadratic in its stages (2,000 stages: over
100 ms), so a script with more ``|`` characters than this is not parsed at all."""
_DEEP_CHECK_BYTES = 200
_ASCII_ONLY = bytes(range(128)) + b"%" * 128
"""Byte map used before parsing: tree-sitter-bash 0.25 can crash on some non-ASCII input
(e.g. ``{`` followed by U+E0000), so every byte >= 0x80 becomes ``%``, a plain word
character; offsets are unchanged and node text is read from the original bytes."""
_LINE_START_BACKSLASH = re.compile(r"\n(?=\\)")
_REDIRECTS = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
_DECLARATIONS = frozenset({"declaration_command", "unset_command"})
_HEREDOC_PARTS = frozenset({"heredoc_start", "heredoc_body", "heredoc_end"})
_EXPANSIONS = frozenset({"simple_expansion", "expansion"})


class TreeWalker:
    """Collects simple commands; ``parse_tree`` turns script bytes into a syntax tree."""

    def __init__(
        self,
        shells: frozenset[str],
        parse_tree: Callable[[bytes], Tree],
        *,
        max_nodes: int = MAX_SYNTAX_NODES,
    ) -> None:
        self.shells = shells
        self.max_nodes = max_nodes
        self.nodes = 0
        self.too_complex = False
        self.parse_tree = parse_tree
        self.source = b""
        self.cmds: list[SimpleCommand] = []
        self.errors: list[str] = []
        self.functions: set[str] = set()
        self.origin = ""
        self.depth = 0

    def run(self, script: str, *, origin: str, depth: int) -> list[int]:
        if depth > MAX_DEPTH:
            self.errors.append("scripts nested too deeply")
            return []
        if "\x00" in script:
            self.errors.append("NUL byte in command")
            return []
        if self.too_complex or script.count("|") > MAX_PIPES:
            self.too_complex = True
            return []
        text = _LINE_START_BACKSLASH.sub("\n ", script.replace("\r\n", "\n").replace("\r", "\n"))
        source = text.encode("utf-8", "surrogatepass")
        ascii_only = source.translate(_ASCII_ONLY)
        if not source.endswith((b"\n", b"\\")):
            # tree-sitter-bash parses a pipeline that ends the input ten times slower than
            # one ended by a newline (50 µs for ``a | b | c``); offsets are unchanged
            ascii_only += b"\n"
        tree = self.parse_tree(ascii_only)
        self.nodes += tree.root_node.descendant_count
        if self.too_complex or self.nodes > self.max_nodes:
            self.too_complex = True
            return []
        saved = (self.origin, self.depth, self.source)
        self.origin, self.depth, self.source = origin, depth, source
        try:
            if len(source) > _DEEP_CHECK_BYTES and too_deep(tree.root_node):
                self.errors.append("the command is nested too deeply" + _where(origin))
                return []
            if tree.root_node.has_error:
                self.errors.append(error_text(tree.root_node) + _where(origin))
            elif "\n" in text and word_spans_lines(tree.root_node):
                self.errors.append("a word spans a line break" + _where(origin))
            return self.walk(tree.root_node, None)
        finally:
            self.origin, self.depth, self.source = saved

    def text(self, node: Node | None) -> str:
        """The original text of ``node`` (the tree was built from an ASCII-only copy)."""
        if node is None:
            return ""
        return self.source[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def walk(self, node: Node, fn: str | None) -> list[int]:
        kind = node.type
        if kind == "command":
            return self.command(node, [], fn)
        if kind == "redirected_statement":
            return self.redirected(node, fn)
        if kind == "pipeline":
            return self.pipeline(node.named_children, fn, [])
        if kind == "function_definition":
            name_node = node.child_by_field_name("name")
            name = self.text(name_node) if name_node is not None else ""
            self.functions.add(name)
            return [i for c in node.named_children if c != name_node for i in self.walk(c, name)]
        if kind in _DECLARATIONS:
            return self.declaration(node, fn)
        if kind in ("variable_assignment", "variable_assignments"):
            nested: list[int] = []
            pairs = [self.assignment(c, nested) for c in _assignments(node)]
            return [
                *nested,
                self.add([], pairs=pairs, redirects=[], nested=nested, node=node, fn=fn),
            ]
        if kind == "test_command" or is_arithmetic(node):
            nested = [i for c in node.named_children for i in self.walk(c, fn)]
            marker = "[[" if kind == "test_command" else None
            if arithmetic_on_variables(node):
                marker = ARITHMETIC
            if marker is None:
                return nested
            pseudo = [Word.literal(marker)]
            if marker == "[[":
                pseudo.extend(self.name_tests(node))
            index = self.add(pseudo, pairs=[], redirects=[], nested=nested, node=node, fn=fn)
            return [*nested, index]
        if kind == "comment":
            return []
        if kind in _EXPANSIONS:
            # an expansion outside a command's words: a pseudo-command that reads it
            inner: list[int] = []
            word = self.word(node, inner)
            pseudo = [Word.literal(EXPANSION), word]
            index = self.add(pseudo, pairs=[], redirects=[], nested=inner, node=node, fn=fn)
            return [*inner, index]
        if kind == "file_redirect":
            # ``$(<file)``: a redirection on its own reads (or writes) the file
            return self.with_redirects(
                [], pairs=[], redirect_nodes=[node], nested=[], node=node, fn=fn
            )
        if kind == "for_statement":
            return self.for_loop(node, fn)
        return [i for child in node.named_children for i in self.walk(child, fn)]

    def name_tests(self, node: Node) -> list[Word]:
        """``-v NAME`` / ``-R NAME`` operands of a test (bash evaluates subscripts in NAME)."""
        out: list[Word] = []
        stack = list(node.named_children)
        while stack:
            child = stack.pop()
            if child.type == "unary_expression":
                operator = child.named_children[0] if child.named_children else None
                if operator is not None and self.text(operator) in ("-v", "-R"):
                    operand = child.named_children[1:2]
                    if operand:
                        out += [Word.literal("-v"), self.word(operand[0], [])]
            stack.extend(child.named_children)
        return out

    def for_loop(self, node: Node, fn: str | None) -> list[int]:
        """``for NAME in ...`` assigns NAME: listed as a bare assignment before the body."""
        variable = node.child_by_field_name("variable")
        nested: list[int] = []
        out: list[int] = []
        if variable is not None:
            pair = (self.text(variable), Word.literal(""))
            out.append(self.add([], pairs=[pair], redirects=[], nested=nested, node=node, fn=fn))
        out.extend(
            i for child in node.named_children if child != variable for i in self.walk(child, fn)
        )
        return out

    def pipeline(self, stages: Sequence[Node], fn: str | None, before: list[int]) -> list[int]:
        """Link each stage to the stage before it only (the closure is computed on demand,
        see ``ParsedScript.sources``): linking to every earlier stage made long pipelines
        quadratic in memory and cubic to judge."""
        previous = frozenset(before)
        out: list[int] = []
        for stage in stages:
            ids = self.walk(stage, fn)
            if previous:
                for i in ids:
                    cmd = self.cmds[i]
                    self.cmds[i] = cmd.linked(previous, piped_stdin=True)
            if ids:
                previous = frozenset(ids)
            out.extend(ids)
        return out

    def redirected(self, node: Node, fn: str | None) -> list[int]:
        body = node.child_by_field_name("body")
        redirect_nodes = [c for c in node.named_children if c.type in _REDIRECTS]
        others = [c for c in node.named_children if c != body and c.type not in _REDIRECTS]
        out = [i for c in others for i in self.walk(c, fn)]
        if body is not None and body.type == "command":
            return out + self.command(body, redirect_nodes, fn)
        ids = self.walk(body, fn) if body is not None else []
        return (
            out
            + ids
            + self.with_redirects(
                [], pairs=[], redirect_nodes=redirect_nodes, nested=[], node=node, fn=fn
            )
        )

    def command(self, node: Node, extra: list[Node], fn: str | None) -> list[int]:
        nested: list[int] = []
        words: list[Word] = []
        pairs: list[tuple[str, Word]] = []
        redirect_nodes: list[Node] = []
        for child, field in _children_with_fields(node):
            if child.type == "variable_assignment":
                pairs.append(self.assignment(child, nested))
            elif child.type == "command_name":
                inner = child.named_children[0] if child.named_children else child
                words.append(self.word(inner, nested))
            elif child.type in _REDIRECTS:
                redirect_nodes.append(child)
            elif field == "argument":
                words.append(self.word(child, nested))
            elif child.is_named and child.type != "comment":
                if child.type != "ERROR":
                    self.errors.append(f"unexpected {child.type} inside a command")
                nested.extend(self.walk(child, fn))
        return self.with_redirects(
            words,
            pairs=pairs,
            redirect_nodes=redirect_nodes + extra,
            nested=nested,
            node=node,
            fn=fn,
        )

    def with_redirects(
        self,
        words: list[Word],
        *,
        pairs: list[tuple[str, Word]],
        redirect_nodes: list[Node],
        nested: list[int],
        node: Node,
        fn: str | None,
    ) -> list[int]:
        redirects: list[Redirect] = []
        followers: list[Node] = []
        downstream: list[Node] = []
        # words after a redirection's target are the command's arguments
        # (``cat < /dev/null ~/.ssh/id_rsa``, ``cat <<EOF .env``)
        extra: list[Word] = []
        for rnode in redirect_nodes:
            redirects.append(self.redirect(rnode, nested, extra))
            if rnode.type == "heredoc_redirect":
                for c, field in _children_with_fields(rnode):
                    if c.type in ("file_redirect", "herestring_redirect"):
                        redirects.append(self.redirect(c, nested, extra))
                    elif c.type == "pipeline":
                        downstream.append(c)
                    elif field == "argument":
                        extra.append(self.word(c, nested))
                    elif c.is_named and c.type not in _HEREDOC_PARTS:
                        followers.append(c)
        if extra and not words:
            self.errors.append("a word follows the redirection of a compound command")
        words = words + extra if words else words
        if not words and not pairs and not redirects:
            return nested
        index = self.add(words, pairs=pairs, redirects=redirects, nested=nested, node=node, fn=fn)
        out = [*nested, index]
        out.extend(self.expand_inline(index, fn))
        for pipe in downstream:
            out.extend(self.pipeline(pipe.named_children, fn, [index]))
        for follower in followers:
            out.extend(self.walk(follower, fn))
        return out

    def expand_inline(self, index: int, fn: str | None) -> list[int]:
        cmd = self.cmds[index]
        found = inline_script(cmd.words, self.shells)
        script = found.script if found else None
        kind = found.kind if found else ""
        if found is None and cmd.words and program_name(cmd.words[0]) in self.shells:
            bodies = [r.text for r in cmd.redirects if r.op in ("<<", "<<-", "<<<")]
            if bodies and all(b is not None for b in bodies):
                script, kind = "\n".join(b or "" for b in bodies), "here-document"
        if script is None:
            return []
        self.cmds[index] = cmd.linked(frozenset(), inline_parsed=True)
        ids = self.run(script, origin=kind, depth=self.depth + 1)
        for i in ids:
            inner = self.cmds[i]
            self.cmds[i] = inner.linked(cmd.upstream, function=fn)
        return ids

    def add(
        self,
        words: list[Word],
        *,
        pairs: list[tuple[str, Word]],
        redirects: list[Redirect],
        nested: list[int],
        node: Node,
        fn: str | None,
    ) -> int:
        index = len(self.cmds)
        self.cmds.append(
            SimpleCommand(
                index=index,
                words=tuple(words),
                assignments=tuple(pairs),
                redirects=tuple(redirects),
                upstream=frozenset(nested),
                origin=self.origin,
                function=fn,
                text=self.text(node),
            )
        )
        return index

    def declaration(self, node: Node, fn: str | None) -> list[int]:
        nested: list[int] = []
        words = [Word.literal(node.children[0].type)]
        pairs: list[tuple[str, Word]] = []
        for child in node.named_children:
            if child.type == "variable_assignment":
                pairs.append(self.assignment(child, nested))
                words.append(Word.literal(self.text(child.child_by_field_name("name"))))
            else:
                words.append(self.word(child, nested))
        return self.with_redirects(
            words, pairs=pairs, redirect_nodes=[], nested=nested, node=node, fn=fn
        )

    def assignment(self, node: Node, nested: list[int]) -> tuple[str, Word]:
        name_node = node.child_by_field_name("name")
        value_node = node.child_by_field_name("value")
        name = self.text(name_node).split("[", 1)[0] if name_node is not None else ""
        value = self.word(value_node, nested) if value_node is not None else Word.literal("")
        return name, value

    def redirect(self, node: Node, nested: list[int], extra: list[Word]) -> Redirect:
        """The redirection ``node``; words after its target go to ``extra``."""
        fd_node = node.child_by_field_name("descriptor")
        fd = self.text(fd_node) if fd_node is not None else None
        op = next((c.type for c in node.children if not c.is_named), "")
        if node.type == "herestring_redirect":
            target_nodes = [c for c in node.named_children if c != fd_node]
            word = self.word(target_nodes[0], nested) if target_nodes else Word.literal("")
            return Redirect("<<<", fd, None, word.value if word.is_static else None, word)
        if node.type == "heredoc_redirect":
            body = next((c for c in node.named_children if c.type == "heredoc_body"), None)
            if body is None:
                return Redirect(op, fd, None, "")
            dynamic = [c for c in body.named_children if c.type != "heredoc_content"]
            for c in dynamic:
                nested.extend(self.walk(c, None))
            return Redirect(op, fd, None, None if dynamic else self.text(body))
        dests = node.children_by_field_name("destination")
        target = self.word(dests[0], nested) if dests else None
        extra.extend(self.word(d, nested) for d in dests[1:])
        return Redirect(op, fd, target)

    def word(self, node: Node, nested: list[int]) -> Word:
        return read_word(node, lambda inner: nested.extend(self.walk(inner, None)), self.text)


def _children_with_fields(node: Node) -> list[tuple[Node, str | None]]:
    """The children of ``node`` with their field names, in one linear cursor walk
    (``Node.field_name_for_child(i)`` scans from the first child each time)."""
    out: list[tuple[Node, str | None]] = []
    cursor = node.walk()
    if not cursor.goto_first_child():
        return out
    while True:
        child = cursor.node
        if child is not None:
            out.append((child, cursor.field_name))
        if not cursor.goto_next_sibling():
            return out


def _assignments(node: Node) -> list[Node]:
    if node.type == "variable_assignment":
        return [node]
    return [c for c in node.named_children if c.type == "variable_assignment"]


def _where(origin: str) -> str:
    return f" in {origin} script" if origin else ""
