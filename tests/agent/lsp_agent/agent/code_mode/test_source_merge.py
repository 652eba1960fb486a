"""A block's methods, written as top-level functions, merge into their class
(`code_mode.source_merge`): Qwen2.5-Coder-1.5B wrote Hangman's methods one at a time that way."""

from __future__ import annotations

from lsp_agent.agent.code_mode.source_merge import merge, merged_source

HANGMAN = (
    "STATUS_ONGOING = 'ongoing'\n\n\nclass Hangman:\n    def __init__(self, word):\n"
    "        self.remaining_guesses = 9\n\n    def guess(self, char):\n        pass\n\n"
    "    def get_status(self):\n        pass\n"
)


def test_a_method_written_at_the_top_level_replaces_the_class_s_own() -> None:
    block = (
        "def guess(self, char):\n    if char not in self.word:\n"
        "        self.remaining_guesses -= 1\n\nprint(guess)\n"
    )
    merged = merge(HANGMAN, block)
    assert merged is not None and merged.names == {"Hangman.guess"}
    assert merged.text == (
        "STATUS_ONGOING = 'ongoing'\n\n\nclass Hangman:\n    def __init__(self, word):\n"
        "        self.remaining_guesses = 9\n\n    def guess(self, char):\n"
        "        if char not in self.word:\n            self.remaining_guesses -= 1\n\n"
        "    def get_status(self):\n        pass\n"
    )
    namespace: dict[str, object] = {}
    exec(compile(merged.text, "hangman.py", "exec"), namespace)  # it is still Python


def test_a_method_brings_its_helpers_before_the_class_and_two_methods_merge_at_once() -> None:
    block = (
        "MASK = '_'\n\ndef hide(word):\n    return MASK * len(word)\n\n"
        "def get_status(self):\n    return STATUS_ONGOING\n\n"
        "def guess(self, char):\n    self.remaining_guesses -= 1\n"
    )
    merged = merge(HANGMAN, block)
    assert merged is not None and merged.names == {"Hangman.guess", "Hangman.get_status"}
    text = merged.text
    assert text.index("def hide(word):") < text.index("class Hangman:")
    assert "    def get_status(self):\n        return STATUS_ONGOING\n" in text
    assert "    def guess(self, char):\n        self.remaining_guesses -= 1\n" in text
    assert text.count("def guess") == 1 and "MASK = '_'" in text


def test_only_a_self_method_of_one_class_is_merged() -> None:
    assert merged_source(HANGMAN, "def guess(char):\n    return char\n") is None  # no self
    two = HANGMAN + "\n\nclass Other:\n    def guess(self, char):\n        pass\n"
    assert merged_source(two, "def guess(self, char):\n    return 1\n") is None  # which?
    # the whole class written: the class is replaced, its method is not merged twice
    whole = "class Hangman:\n    def guess(self, char):\n        return 1\n"
    merged = merge(HANGMAN, whole + "\ndef guess(self, char):\n    return 2\n")
    assert merged is not None and merged.names == {"Hangman"}


def test_a_constant_the_file_assigns_is_written_in_its_place() -> None:
    original = "ONES = []\n\n\ndef say(n):\n    pass\n"
    merged = merged_source(original, "ONES = ['zero']\n\ndef say(n):\n    return ONES[n]\n")
    assert merged == "ONES = ['zero']\n\n\ndef say(n):\n    return ONES[n]\n"
    # a constant alone merges nothing: it comes along with a definition
    assert merged_source(original, "ONES = ['zero']\n") is None


SCRABBLE = (
    "def score(word):\n    letter_values = {\n        'a': 1, 'e': 1,\n        'z': 10\n    }\n"
    "    return sum(letter_values[letter] for letter in word.lower())\n"
)


def test_a_table_a_function_assigns_in_its_body_is_written_into_that_body() -> None:
    # scrabble-score: asked again, the model wrote only the corrected table
    block = "letter_values = {\n    'a': 1, 'e': 1,\n    'x': 8,\n    'z': 10\n}\n\nprint(1)\n"
    merged = merge(SCRABBLE, block)
    assert merged is not None and merged.names == {"score"}
    assert merged.text == (
        "def score(word):\n    letter_values = {\n        'a': 1, 'e': 1,\n        'x': 8,\n"
        "        'z': 10\n    }\n"
        "    return sum(letter_values[letter] for letter in word.lower())\n"
    )
    namespace: dict[str, object] = {}
    exec(compile(merged.text, "scrabble_score.py", "exec"), namespace)
    assert namespace["score"]("ax") == 9  # type: ignore[operator]


def test_a_body_table_of_a_method_goes_into_the_method() -> None:
    original = (
        "class Board:\n    def value(self, key):\n        table = {'a': 1}\n"
        "        return table[key]\n"
    )
    merged = merge(original, "table = {'a': 1, 'b': 2}\n")
    assert merged is not None and merged.names == {"Board.value"}
    assert "        table = {'a': 1, 'b': 2}\n        return table[key]\n" in merged.text


def test_a_body_table_is_left_where_it_would_be_ambiguous_or_would_change() -> None:
    two = SCRABBLE + "\n\ndef other(word):\n    letter_values = {}\n    return letter_values\n"
    assert merge(two, "letter_values = {'x': 8}\n") is None  # two functions assign it: which?
    top = "letter_values = {}\n\n\n" + SCRABBLE  # the file's top level assigns it too
    assert merge(top, "letter_values = {'x': 8}\n") is None  # a constant alone merges nothing
    assert merge(SCRABBLE, "letter_values = make_table()\n") is None  # a call, not a constant
    counting = "def count(word):\n    total = 0\n    for _ in word:\n        total += 1\n"
    assert merge(counting + "    return total\n", "total = 5\n") is None  # a start value
    assert merge(SCRABBLE, 'letter_values = ["""a\nb"""]\n') is None  # indenting changes it
    # the function written whole as well: the block's table is its top-level constant
    whole = "letter_values = {'x': 8}\n\ndef score(word):\n    return letter_values[word]\n"
    merged = merge(SCRABBLE, whole)
    assert merged is not None and merged.names == {"score"}
    assert merged.text.startswith("letter_values = {'x': 8}\n\n\ndef score(word):\n")
