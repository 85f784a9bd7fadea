"""Obsidian's ``%%comments%%`` are the author's private notes: readers never see them."""

import pytest
from bs4 import BeautifulSoup

from rendering import markdown_headings, render_markdown
from rendering.markdown import markdown_links, markdown_passages, markdown_text


def shown(markdown: str) -> str:
    """Return the text a reader sees, whitespace collapsed."""
    soup = BeautifulSoup(render_markdown(markdown), "html.parser")
    for node in soup.select(".katex-mathml"):
        node.decompose()
    return " ".join(soup.get_text(" ").split())


@pytest.mark.parametrize(
    ("markdown", "text"),
    [
        ("a %%note%% b", "a b"),
        ("前文%%备注%%后文", "前文后文"),
        ("one %%spans\na soft break%% two", "one two"),
        ("%%\nwhole\nparagraph\n%%\n\nafter", "after"),
        (
            "before\n\n%%\npara\n\n## heading\n\n```\ncode\n```\n\n- item\n%%\n\nafter",
            "before after",
        ),
        ("open %%here\n\nmiddle\n\n- a\n- end%% shown\n\nlast", "open shown last"),
        ("never %%closed\n\nhidden\n\n```\nalso hidden\n```", "never"),
        ("| a | b %%x%% |\n|---|---|\n| 1 | 2 |", "a b 1 2"),
        ("> [!note] 标题\n> body %%x%%", "标题 body"),
        ("- a %%x%%\n- b", "a b"),
    ],
)
def test_comments_are_hidden_wherever_they_are(markdown, text):
    assert shown(markdown) == text


def test_blocks_left_empty_are_not_drawn():
    html = render_markdown(
        "a\n\n%%\nnote\n%%\n\n- %%only a note%%\n\n## %%draft%%\n\nb"
    )
    assert BeautifulSoup(html, "html.parser").find_all(["ul", "li", "h2"]) == []
    assert html.count("<p>") == 2


@pytest.mark.parametrize(
    "markdown",
    [
        "`a %%b%% c`",
        '```\nprintf("100%%");\n```',
        "50% and 100%",
        "\\%% escaped",
    ],
)
def test_percent_signs_in_code_and_text_are_kept(markdown):
    assert "%" in shown(markdown)


def test_math_keeps_its_percent_signs():
    # TeX's own comment sign stays TeX's.
    assert "a %% b" in render_markdown("$a %% b$")


def test_headings_search_and_links_leave_comments_out():
    source = "## 标题 %%草稿%%\n\n正文 %%[秘密](https://example.com) nsys%% 可见"
    assert markdown_headings(source) == [("h2", "标题")]
    assert 'id="标题"' in render_markdown(source)
    assert markdown_links(source) == []
    assert markdown_text(source) == "标题 正文 可见"
    assert "nsys" not in str(markdown_passages(source))
