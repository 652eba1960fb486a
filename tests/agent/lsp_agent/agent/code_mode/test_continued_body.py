"""An indented block that does not parse alone is read as the rest of the function whose
parameters it uses (`code_mode.continued_body`)."""

from __future__ import annotations

import ast

from lsp_agent.agent.code_mode.continued_body import continued

SAY = (
    '"""Say a number."""\n\n\ndef say(number):\n'
    "    if number < 0 or number > 999999999999:\n"
    '        raise ValueError("input out of range")\n'
    "    # Implement the rest of the function\n\n\n"
    "def other(text):\n    return text\n"
)
REST = '    # numbers below 20\n    if number < 20:\n        return ONES[number]\n    return "many"'


def test_the_rest_of_a_body_follows_what_the_function_has() -> None:
    whole = continued(REST, SAY)
    assert whole == (
        "def say(number):\n"
        "    if number < 0 or number > 999999999999:\n"
        '        raise ValueError("input out of range")\n'
        "    # numbers below 20\n    if number < 20:\n        return ONES[number]\n"
        '    return "many"\n'
    )  # the placeholder comment is gone, other() is not written


def test_the_first_line_stripped_by_the_agent_is_indented_as_the_rest() -> None:
    # smolagents strips the block: "# numbers below 20\n    if number < 20:" (say)
    assert continued(REST.strip(), SAY) == continued(REST, SAY)
    stripped = "if number == 1:\n        return 'one'\n    return 'many'"
    whole = continued(stripped, SAY)
    assert whole is not None and whole.endswith("        return 'one'\n    return 'many'\n")


def test_a_body_written_again_from_its_start_replaces_the_body() -> None:
    again = (
        "    if number < 0 or number > 999999999999:\n        raise ValueError('no')\n"
        "    return 'x'"
    )
    whole = continued(again, SAY)
    assert whole is not None
    assert whole.count("if number < 0") == 1 and whole.endswith("    return 'x'\n")


def test_a_placeholder_body_and_its_docstring() -> None:
    source = 'def total(items):\n    """Sum them."""\n    pass\n'
    assert continued("        return sum(items)\n", source) == (
        'def total(items):\n    """Sum them."""\n    return sum(items)\n'
    )
    raising = "def total(items):\n    raise NotImplementedError('todo')\n"
    whole = continued("    return sum(items)", raising)
    assert whole == "def total(items):\n    return sum(items)\n"


def test_a_method_comes_back_at_the_top_level_for_its_class() -> None:
    source = (
        "class Game:\n    def __init__(self, word):\n        self.word = word\n\n"
        "    @staticmethod\n    def noop(x):\n        pass\n\n"
        "    def guess(self, char):\n        pass\n"
    )
    whole = continued("        self.left -= 1\n        return char in self.word\n", source)
    assert whole == "def guess(self, char):\n    self.left -= 1\n    return char in self.word\n"
    ast.parse(whole)


def test_what_is_no_continuation_gives_none() -> None:
    assert continued("def say(number):\n    return 'x'\n", SAY) is None  # parses by itself
    assert continued("    return 1", SAY) is None  # uses no parameter
    assert continued("if number < 20:\nreturn 1\n", SAY) is None  # not indented
    assert continued("    return (number", SAY) is None  # does not parse even placed
    assert continued(REST, "def say(number): pass\n") is None  # a one-line def
    assert continued(REST, "def say(:\n") is None  # the file does not parse
    tie = continued("    return text + str(number)", SAY)  # one parameter of each: the later
    assert tie is not None and tie.startswith("def other(text):")
