"""``==highlight==`` becomes <mark>; comparisons, code and math keep their equals signs."""

import pytest
from bs4 import BeautifulSoup

from rendering import render_markdown


def marks(markdown: str) -> list[str]:
    soup = BeautifulSoup(render_markdown(markdown), "html.parser")
    return [mark.decode_contents() for mark in soup.find_all("mark")]


def text_of(markdown: str) -> str:
    return BeautifulSoup(render_markdown(markdown), "html.parser").get_text().strip()


@pytest.mark.parametrize(
    ("markdown", "marked"),
    [
        ("a ==b== c", ["b"]),
        ("这是==重点==内容", ["重点"]),  # beside CJK, as Obsidian reads it
        ("**==粗体高亮==**", ["粗体高亮"]),
        ("==**bold** inside== ok", ["<strong>bold</strong> inside"]),
        ("==one== and ==two==", ["one", "two"]),
    ],
)
def test_highlights_become_marks(markdown, marked):
    assert marks(markdown) == marked


@pytest.mark.parametrize(
    "markdown",
    ["a == b", "if (x == y) return", "==unclosed", "x = 1; y == 2", "a ==  b == c"],
)
def test_equals_signs_that_highlight_nothing_stay_text(markdown):
    assert marks(markdown) == []
    assert text_of(markdown) == markdown


def test_an_odd_run_leaves_one_sign_outside_the_highlight():
    assert text_of("==x=== y") == "x= y"
    assert marks("==x=== y") == ["x"]
    assert marks("===x== y") == ["x"]
    assert text_of("===x== y") == "=x y"


def test_code_and_math_keep_their_equals_signs():
    html = render_markdown("`==code==` and $a==b$ and ==m==")
    soup = BeautifulSoup(html, "html.parser")
    assert soup.find("code").get_text() == "==code=="
    assert soup.find("annotation").get_text() == "a==b"
    assert [mark.get_text() for mark in soup.find_all("mark")] == ["m"]
