"""``> [!TYPE]`` quotes become callouts; anything else stays a quote."""

import pytest

from rendering import render_markdown
from rendering.callouts import CALLOUT_TYPES
from tests.rendering.rendered import formulas, soup_of


@pytest.mark.parametrize(
    "kind", ["note", "tip", "info", "warning", "danger"], ids=lambda k: k
)
def test_callout_types(kind):
    soup = soup_of(f"> [!{kind.upper()}]\n> Body text.\n")

    aside = soup.find("aside")
    assert aside["class"] == ["callout", f"callout-{kind}"]
    assert aside.select_one("p.callout-title").get_text() == kind.capitalize()
    assert [p.get_text() for p in aside.find_all("p")][1:] == ["Body text."]
    assert soup.find("blockquote") is None


@pytest.mark.parametrize(
    ("written", "kind"),
    [
        ("important", "info"),
        ("caution", "warning"),
        ("error", "danger"),
        ("hint", "tip"),
        ("abstract", "info"),
        ("summary", "info"),
        ("question", "info"),
        ("bug", "danger"),
        ("example", "note"),
        ("quote", "note"),
    ],
)
def test_callout_synonyms(written, kind):
    soup = soup_of(f"> [!{written}]\n> Body.\n")

    assert soup.aside["class"] == ["callout", f"callout-{kind}"]
    assert soup.select_one(".callout-title").get_text() == written.capitalize()


def test_every_callout_synonym_maps_to_a_canonical_type():
    assert set(CALLOUT_TYPES.values()) == {"note", "tip", "info", "warning", "danger"}


def test_callout_custom_title_with_inline_markup_and_math():
    soup = soup_of("> [!Tip] Use *shared* memory for $O(1)$ reuse\n> Body.\n")

    title = soup.select_one("aside.callout-tip p.callout-title")
    assert title.em.get_text() == "shared"
    assert formulas(title) == [("O(1)", False)]


def test_foldable_callout_markers_are_tolerated():
    for marker in ("-", "+"):
        soup = soup_of(f"> [!WARNING]{marker} Careful\n> Body.\n")

        assert soup.aside["class"] == ["callout", "callout-warning"]
        assert soup.select_one(".callout-title").get_text() == "Careful"


def test_callout_body_keeps_blocks_and_math():
    text = "> [!NOTE]\n> First.\n>\n> $$x^2$$\n>\n> ```cuda\n> int i;\n> ```\n"

    soup = soup_of(text)

    aside = soup.aside
    assert aside.select_one("p:not(.callout-title)").get_text() == "First."
    assert aside.select_one("div.math-display") is not None
    assert aside.select_one("code.language-cuda") is not None


def test_callout_with_only_a_title():
    soup = soup_of("> [!DANGER] Do not do this\n")

    assert [p.get_text() for p in soup.aside.find_all("p")] == ["Do not do this"]


def test_unknown_callout_type_stays_a_blockquote():
    soup = soup_of("> [!FOO]\n> Body.\n")

    assert soup.aside is None
    assert soup.blockquote.p.get_text() == "[!FOO]\nBody."


def test_plain_blockquote_is_untouched():
    assert render_markdown("> Quote.") == "<blockquote>\n<p>Quote.</p>\n</blockquote>\n"


def test_nested_callout_inside_a_list():
    soup = soup_of("- item\n\n  > [!TIP]\n  > Nested.\n")

    assert soup.select_one("li aside.callout-tip") is not None
