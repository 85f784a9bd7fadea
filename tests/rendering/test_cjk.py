"""Emphasis next to CJK punctuation parses as Obsidian shows it; English as before."""

import pytest
from bs4 import BeautifulSoup
from markdown_it import MarkdownIt

from rendering import render_markdown
from rendering.cjk import is_cjk

MARKERS = {"**": "strong", "*": "em", "~~": "s"}
PAIRS = ["（）", "「」", "《》", "“”"]
SINGLES = list("：，。！？")
NEIGHBOURS = {"cjk": ("中", "文"), "latin": ("a", "b"), "space": (" ", " ")}


def emphasised(text: str, tag: str) -> list[str]:
    soup = BeautifulSoup(render_markdown(text), "html.parser")
    return [element.get_text() for element in soup.find_all(tag)]


def cases():
    for marker, tag in MARKERS.items():
        for where, (left, right) in NEIGHBOURS.items():
            for pair in PAIRS:
                if pair == "“”" and where == "latin":
                    continue  # English quotes: see test_curly_quotes_between_latin…
                inner = f"{pair[0]}Strong 领导{pair[1]}"
                yield (
                    marker,
                    tag,
                    where,
                    f"前{left}{marker}{inner}{marker}{right}后",
                    inner,
                )
            for pair in PAIRS:  # punctuation outside the markers, and both
                yield (
                    marker,
                    tag,
                    where,
                    f"{left}{pair[0]}{marker}重点{marker}{pair[1]}",
                    "重点",
                )
                inner = "「重点」"
                yield (
                    marker,
                    tag,
                    where,
                    f"{pair[0]}{marker}{inner}{marker}{pair[1]}",
                    inner,
                )
            for mark in SINGLES:
                yield (
                    marker,
                    tag,
                    where,
                    f"前{left}{mark}{marker}重点{marker}{mark}{right}",
                    "重点",
                )
                inner = f"重点{mark}"
                yield (
                    marker,
                    tag,
                    where,
                    f"前{left}{marker}{inner}{marker}{right}后",
                    inner,
                )
                inner = f"{mark}重点"
                yield (
                    marker,
                    tag,
                    where,
                    f"前{left}{marker}{inner}{marker}{right}后",
                    inner,
                )


@pytest.mark.parametrize(
    ("marker", "tag", "where", "text", "inner"),
    list(cases()),
    ids=lambda value: value if isinstance(value, str) and len(value) < 12 else None,
)
def test_emphasis_around_cjk_punctuation(marker, tag, where, text, inner):
    html = render_markdown(text)

    assert emphasised(text, tag) == [inner], html
    assert marker not in BeautifulSoup(html, "html.parser").get_text()


def test_the_reported_heading_phrase_is_bold():
    assert emphasised("**强领导者（Strong Leader）**驱动", "strong") == [
        "强领导者（Strong Leader）"
    ]


def test_curly_quotes_between_latin_letters_follow_commonmark():
    # “” are English quotes too (not wide), so between Latin letters the
    # CJK-friendly rule, like CommonMark, finds no emphasis.
    text = "a**“quoted”**b"
    plain = MarkdownIt("commonmark")

    assert render_markdown(text) == plain.render(text)
    assert emphasised("中**“引用”**文", "strong") == ["“引用”"]


ENGLISH = [
    "Hello *world* and **bold** and ~~gone~~.",
    "a * b * c and a ** b ** c",
    "foo**bar**baz and foo*bar*",
    "__foo__bar and foo_bar_ and _foo_bar",
    '**foo "*bar*" foo**',
    "*(*foo*)* and **(**foo**)**",
    "*foo**bar**baz* and ***strong emph***",
    "5*6*78 and *$*alpha.",
    "**Gomphocarpus (*Gomphocarpus physocarpus*, syn. *Asclepias physocarpa*)**",
    "*foo`*`* and [link*](x*) and *a\nb*",
    "_(_foo_)_ and __(__foo__)__ and _foo__bar_",
]


@pytest.mark.parametrize("text", ENGLISH)
def test_english_emphasis_is_parsed_as_commonmark_does(text):
    plain = MarkdownIt("commonmark").enable("strikethrough")

    assert render_markdown(text) == plain.render(text)


def test_cjk_characters_are_told_from_latin_and_emoji():
    assert all(is_cjk(char) for char in "中（」《，。한")
    assert not any(is_cjk(char) for char in "a,.(é🚀")
