"""Bug-fix tasks of the kind users bring: one small module, one wrong comparison, constant or
off-by-one, a test file that fails because of it, and the task as a user would type it:
"The tests in test_X.py fail. Find and fix the bug in X.py."

Each module has a few functions and only one bug; the test file tests the buggy function
(and some of the others). A run passes when the module is the only file that changed and a
hidden probe (stricter than the visible tests, and checking the other functions still work)
runs cleanly. These tasks are a held-out measurement: prompts and hints are not tuned on
their wording (the compliance levels serve for that).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BugfixTask:
    key: str
    module: str  # file name, e.g. "temperature.py"
    source: str  # the module with its one bug
    tests: str  # the visible test file's text (it fails until the bug is fixed)
    probe: str  # hidden checks, run with the repository on sys.path
    max_steps: int = 12

    @property
    def name(self) -> str:
        return self.module.removesuffix(".py")

    @property
    def test_file(self) -> str:
        return f"test_{self.module}"

    @property
    def task(self) -> str:
        return f"The tests in {self.test_file} fail. Find and fix the bug in {self.module}."


TASKS: tuple[BugfixTask, ...] = (
    BugfixTask(
        "freezing",
        "temperature.py",
        '"""Temperature helpers."""\n\n\n'
        "def to_fahrenheit(celsius):\n"
        "    return celsius * 9 / 5 + 32\n\n\n"
        "def is_freezing(celsius):\n"
        '    """Water freezes at 0 degrees Celsius and below."""\n'
        "    return celsius < 0\n\n\n"
        "def describe(celsius):\n"
        '    return "freezing" if is_freezing(celsius) else "liquid"\n',
        "from temperature import describe, is_freezing, to_fahrenheit\n\n\n"
        "def test_freezing_point():\n    assert is_freezing(0)\n    assert not is_freezing(1)\n\n\n"
        "def test_fahrenheit():\n    assert to_fahrenheit(100) == 212\n\n\n"
        'def test_describe():\n    assert describe(-5) == "freezing"\n',
        "from temperature import *\n"
        "assert is_freezing(0) and is_freezing(-1) and not is_freezing(0.5)\n"
        "assert to_fahrenheit(0) == 32 and describe(20) == 'liquid'\n",
    ),
    BugfixTask(
        "discount",
        "pricing.py",
        '"""Prices and discounts."""\n\n'
        "TAX_RATE = 0.2\n\n\n"
        "def with_tax(price):\n"
        "    return round(price * (1 + TAX_RATE), 2)\n\n\n"
        "def apply_discount(price, percent):\n"
        '    """The price after taking `percent` percent off."""\n'
        "    return round(price - price * percent / 10, 2)\n",
        "from pricing import apply_discount, with_tax\n\n\n"
        "def test_discount():\n    assert apply_discount(200, 10) == 180\n\n\n"
        "def test_tax():\n    assert with_tax(100) == 120\n",
        "from pricing import *\n"
        "assert apply_discount(200, 10) == 180 and apply_discount(50, 50) == 25\n"
        "assert apply_discount(80, 0) == 80 and with_tax(10) == 12\n",
    ),
    BugfixTask(
        "pages",
        "pagination.py",
        '"""Splitting lists into pages."""\n\n\n'
        "def page_count(total, per_page):\n"
        '    """How many pages `total` items fill, `per_page` to a page."""\n'
        "    return total // per_page\n\n\n"
        "def page(items, number, per_page):\n"
        '    """Page `number` (from 1) of `items`."""\n'
        "    start = (number - 1) * per_page\n"
        "    return items[start : start + per_page]\n",
        "from pagination import page, page_count\n\n\n"
        "def test_page_count_rounds_up():\n    assert page_count(11, 5) == 3\n\n\n"
        "def test_page():\n    assert page(list(range(7)), 2, 3) == [3, 4, 5]\n",
        "from pagination import *\n"
        "assert page_count(11, 5) == 3 and page_count(10, 5) == 2 and page_count(0, 5) == 0\n"
        "assert page_count(1, 5) == 1 and page([1, 2, 3], 1, 2) == [1, 2]\n",
    ),
    BugfixTask(
        "initials",
        "names.py",
        '"""Formatting people\'s names."""\n\n\n'
        "def full_name(first, last):\n"
        '    return f"{first} {last}"\n\n\n'
        "def initials(name):\n"
        '    """The first letter of every word, upper case: "ada lovelace" -> "AL"."""\n'
        '    return "".join(word[1] for word in name.split()).upper()\n',
        "from names import full_name, initials\n\n\n"
        'def test_initials():\n    assert initials("ada lovelace") == "AL"\n\n\n'
        'def test_full_name():\n    assert full_name("Ada", "Lovelace") == "Ada Lovelace"\n',
        "from names import *\n"
        "assert initials('ada lovelace') == 'AL' and initials('Grace Brewster Hopper') == 'GBH'\n"
        "assert full_name('a', 'b') == 'a b'\n",
    ),
    BugfixTask(
        "grades",
        "grades.py",
        '"""Letter grades from scores out of 100."""\n\n\n'
        "def letter(score):\n"
        "    if score > 90:\n"
        '        return "A"\n'
        "    if score >= 80:\n"
        '        return "B"\n'
        "    if score >= 70:\n"
        '        return "C"\n'
        '    return "F"\n\n\n'
        "def passed(score):\n"
        '    return letter(score) != "F"\n',
        "from grades import letter, passed\n\n\n"
        'def test_ninety_is_an_a():\n    assert letter(90) == "A"\n\n\n'
        'def test_b():\n    assert letter(85) == "B"\n\n\n'
        "def test_passed():\n    assert not passed(50)\n",
        "from grades import *\n"
        "assert letter(90) == 'A' and letter(100) == 'A' and letter(89) == 'B'\n"
        "assert letter(70) == 'C' and letter(69) == 'F' and passed(75)\n",
    ),
    BugfixTask(
        "stock",
        "stock.py",
        '"""Warehouse stock levels."""\n\n'
        "REORDER_LEVEL = 5\n\n\n"
        "def low_stock(counts, threshold=REORDER_LEVEL):\n"
        '    """Names of the items with fewer than `threshold` left."""\n'
        "    return sorted(name for name, count in counts.items() if count > threshold)\n\n\n"
        "def total(counts):\n"
        "    return sum(counts.values())\n",
        "from stock import low_stock, total\n\n\n"
        "def test_low_stock():\n"
        '    assert low_stock({"bolts": 2, "nuts": 40, "pins": 4}) == ["bolts", "pins"]\n\n\n'
        'def test_total():\n    assert total({"a": 1, "b": 2}) == 3\n',
        "from stock import *\n"
        "assert low_stock({'a': 2, 'b': 40, 'c': 4}) == ['a', 'c']\n"
        "assert low_stock({'a': 5}) == [] and low_stock({'a': 9}, threshold=10) == ['a']\n"
        "assert total({'x': 3}) == 3\n",
    ),
    BugfixTask(
        "hours",
        "timeconv.py",
        '"""Converting durations."""\n\n\n'
        "def seconds_to_minutes(seconds):\n"
        "    return seconds / 60\n\n\n"
        "def minutes_to_hours(minutes):\n"
        "    return minutes / 24\n\n\n"
        "def format_hours(minutes):\n"
        '    return f"{minutes_to_hours(minutes):.1f} h"\n',
        "from timeconv import format_hours, minutes_to_hours, seconds_to_minutes\n\n\n"
        "def test_minutes_to_hours():\n    assert minutes_to_hours(90) == 1.5\n\n\n"
        'def test_format():\n    assert format_hours(30) == "0.5 h"\n\n\n'
        "def test_seconds():\n    assert seconds_to_minutes(120) == 2\n",
        "from timeconv import *\n"
        "assert minutes_to_hours(90) == 1.5 and minutes_to_hours(0) == 0\n"
        "assert format_hours(120) == '2.0 h' and seconds_to_minutes(30) == 0.5\n",
    ),
    BugfixTask(
        "tail",
        "listops.py",
        '"""Small list helpers."""\n\n\n'
        "def first_n(items, n):\n"
        "    return items[:n]\n\n\n"
        "def last_n(items, n):\n"
        '    """The last `n` items, in order."""\n'
        "    return items[len(items) - n + 1 :]\n\n\n"
        "def chunks(items, size):\n"
        "    return [items[i : i + size] for i in range(0, len(items), size)]\n",
        "from listops import chunks, first_n, last_n\n\n\n"
        "def test_last_n():\n    assert last_n([1, 2, 3, 4, 5], 2) == [4, 5]\n\n\n"
        "def test_first_n():\n    assert first_n([1, 2, 3], 2) == [1, 2]\n\n\n"
        "def test_chunks():\n    assert chunks([1, 2, 3], 2) == [[1, 2], [3]]\n",
        "from listops import *\n"
        "assert last_n([1, 2, 3, 4, 5], 2) == [4, 5] and last_n([1, 2, 3], 3) == [1, 2, 3]\n"
        "assert last_n([1, 2, 3], 1) == [3] and first_n([1, 2], 1) == [1]\n",
    ),
    BugfixTask(
        "leap",
        "calendar_util.py",
        '"""Calendar arithmetic."""\n\n\n'
        "def is_leap(year):\n"
        '    """Leap years: every 4th year, except centuries not divisible by 400."""\n'
        "    return year % 4 == 0 and (year % 100 != 0 or year % 40 == 0)\n\n\n"
        "def days_in_year(year):\n"
        "    return 366 if is_leap(year) else 365\n",
        "from calendar_util import days_in_year, is_leap\n\n\n"
        "def test_centuries():\n    assert is_leap(2000)\n    assert not is_leap(1900)\n"
        "    assert not is_leap(2200)\n\n\n"
        "def test_days():\n    assert days_in_year(2024) == 366\n",
        "from calendar_util import *\n"
        "assert is_leap(2000) and is_leap(2400) and not is_leap(1900) and not is_leap(2200)\n"
        "assert is_leap(2024) and not is_leap(2023) and days_in_year(2023) == 365\n",
    ),
    BugfixTask(
        "words",
        "text_stats.py",
        '"""Statistics about text."""\n\n\n'
        "def count_words(text):\n"
        '    """How many words `text` has (split on whitespace)."""\n'
        "    return len(text.split()) + 1\n\n\n"
        "def longest_word(text):\n"
        '    return max(text.split(), key=len, default="")\n',
        "from text_stats import count_words, longest_word\n\n\n"
        'def test_count_words():\n    assert count_words("the quick brown fox") == 4\n\n\n'
        'def test_longest():\n    assert longest_word("a bb ccc") == "ccc"\n',
        "from text_stats import *\n"
        "assert count_words('the quick brown fox') == 4 and count_words('') == 0\n"
        "assert count_words('one') == 1 and longest_word('') == ''\n",
    ),
    BugfixTask(
        "series",
        "series.py",
        '"""Sums of number series."""\n\n\n'
        "def sum_to(n):\n"
        '    """1 + 2 + ... + n."""\n'
        "    return sum(range(n))\n\n\n"
        "def sum_of_squares(n):\n"
        "    return sum(i * i for i in range(1, n + 1))\n",
        "from series import sum_of_squares, sum_to\n\n\n"
        "def test_sum_to():\n    assert sum_to(4) == 10\n\n\n"
        "def test_squares():\n    assert sum_of_squares(3) == 14\n",
        "from series import *\n"
        "assert sum_to(4) == 10 and sum_to(1) == 1 and sum_to(0) == 0\n"
        "assert sum_of_squares(2) == 5\n",
    ),
    BugfixTask(
        "vowels",
        "letters.py",
        '"""Counting letters."""\n\n'
        'VOWELS = "aeio"\n\n\n'
        "def count_vowels(text):\n"
        "    return sum(1 for char in text.lower() if char in VOWELS)\n\n\n"
        "def count_consonants(text):\n"
        "    return sum(1 for char in text.lower() if char.isalpha() and char not in VOWELS)\n",
        "from letters import count_consonants, count_vowels\n\n\n"
        'def test_vowels():\n    assert count_vowels("Uluru") == 3\n\n\n'
        'def test_consonants():\n    assert count_consonants("but") == 2\n',
        "from letters import *\n"
        "assert count_vowels('Uluru') == 3 and count_vowels('AEIOU') == 5\n"
        "assert count_consonants('but') == 2 and count_consonants('xyz') == 3\n",
    ),
)


def select_tasks(keys: tuple[str, ...] = ()) -> tuple[BugfixTask, ...]:
    """The tasks named in `keys` (their keys), or all; ValueError if one is unknown."""
    if not keys:
        return TASKS
    by_key = {task.key: task for task in TASKS}
    unknown = [key for key in keys if key not in by_key]
    if unknown:
        raise ValueError(f"unknown task {unknown[0]!r}; choose from {', '.join(by_key)}")
    return tuple(by_key[key] for key in keys)
