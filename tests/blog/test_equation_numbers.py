"""Numbered display math: automatic numbers in page order, \\tag, and labels."""

import re
import xml.etree.ElementTree as ET

import pytest
from bs4 import BeautifulSoup
from wagtail.blocks import StructBlockValidationError

from blog.blocks import MathBlock
from tests.factories import PostPageFactory

ATOM = "{http://www.w3.org/2005/Atom}"


def math(tex, label="", numbered=True):
    return ("math", {"tex": tex, "label": label, "numbered": numbered})


def publish(home, slug, body):
    post = PostPageFactory(parent=home, slug=slug, title=slug)
    post.body = body
    post.save_revision().publish()
    return post


def numbers_on(html):
    """Return the text beside each display formula of a page, in order."""
    page = BeautifulSoup(html, "html.parser")
    return [
        (label.get_text() if (label := block.select_one(".math-label")) else None)
        for block in page.select(".post-body .block-math")
    ]


def get(client, post):
    response = client.get(post.url)
    assert response.status_code == 200
    return response.content.decode()


def test_numbered_formulas_get_1_2_3_in_page_order(client, home):
    post = publish(
        home,
        "numbers",
        [
            math("a = b"),
            math("c = d", numbered=False),
            ("paragraph", "<p>由上式可知</p>"),
            math("e = f"),
            math("g = h", label="A.1"),
            math("i = j"),
        ],
    )
    # The one written by hand keeps its label and takes no number, as in LaTeX.
    expected = ["(1)", None, "(2)", "(A.1)", "(3)"]
    assert numbers_on(get(client, post)) == expected
    # From the render cache, the same numbers.
    assert numbers_on(get(client, post)) == expected


def test_a_tag_is_shown_by_katex_and_takes_no_number(client, home):
    post = publish(home, "tagged", [math(r"E = mc^2 \tag{爱因斯坦}"), math("x = y")])
    html = get(client, post)
    page = BeautifulSoup(html, "html.parser")
    first, second = page.select(".post-body .block-math")
    assert first.select_one(".katex-tag").get_text() == "(爱因斯坦)"
    assert first.select_one(".math-label") is None
    assert second.select_one(".math-label").get_text() == "(1)"


def test_rows_katex_numbers_itself_count_with_the_blocks(client, home):
    align = r"\begin{align} a &= b \\ c &= d \end{align}"
    post = publish(home, "align", [math("x = 1"), math(align), math("y = 2")])
    html = get(client, post)
    # (1), then the environment's two rows (2) and (3) by KaTeX's CSS counter,
    # which the automatic number increments too; then (4).
    assert numbers_on(html) == ["(1)", None, "(4)"]
    assert html.count('class="eqn-num"') == 2
    assert html.count("math-label-auto") == 2


def test_the_feed_carries_the_same_numbers(client, home):
    publish(home, "feed-numbers", [math("a = b"), math("c = d")])
    feed = ET.fromstring(client.get("/feed/").content)  # noqa: S314  our own output
    content = next(
        entry.find(f"{ATOM}content").text
        for entry in feed.findall(f"{ATOM}entry")
        if entry.findtext(f"{ATOM}title") == "feed-numbers"
    )
    assert re.findall(r'class="math-label[^"]*">\((\d)\)', content) == ["1", "2"]


def test_old_math_blocks_without_the_switch_are_not_numbered(client, home):
    post = publish(home, "old", [("math", {"tex": "a = b", "label": ""})])
    assert numbers_on(get(client, post)) == [None]


def test_a_label_beside_a_tag_is_refused():
    block = MathBlock()
    with pytest.raises(StructBlockValidationError) as error:
        block.clean(block.to_python({"tex": r"a \tag{2}", "label": "1"}))
    assert "\\tag" in str(error.value.block_errors["label"])


def test_a_formula_alone_has_no_automatic_number():
    block = MathBlock()
    html = block.render(block.to_python({"tex": "a", "label": "", "numbered": True}))
    assert 'class="katex' in html
    assert "math-label" not in html
