"""MkDocs syntax: admonitions as callouts, content tabs, attribute lists."""

import time

import pytest

from rendering import render_markdown
from tests.rendering.rendered import formulas, soup_of


def test_mkdocs_admonitions_render_as_callouts():
    text = (
        '!!! warning "Bank conflicts"\n'
        "    Pad the tile: $s = 33$.\n\n"
        "    ```cuda\n"
        "    __shared__ float tile[32][33];\n"
        "    ```\n\n"
        "!!! tip\n"
        "    Use `cp.async`.\n\n"
        "after\n"
    )

    soup = soup_of(text)

    first, second = soup.find_all("aside")
    assert first["class"] == ["callout", "callout-warning"]
    assert first.select_one("p.callout-title").get_text() == "Bank conflicts"
    assert formulas(first) == [("s = 33", False)]
    assert first.select_one("code.language-cuda") is not None
    assert second["class"] == ["callout", "callout-tip"]
    assert second.select_one("p.callout-title").get_text() == "Tip"
    assert soup.find_all("p")[-1].get_text() == "after"
    assert "!!!" not in soup.get_text()


def test_collapsible_admonitions_are_shown_open():
    soup = soup_of('??? info "Proof"\n    Hidden.\n\n???+ question\n    Shown.\n')

    kinds = [aside["class"] for aside in soup.find_all("aside")]
    assert kinds == [["callout", "callout-info"], ["callout", "callout-info"]]
    assert [p.get_text() for p in soup.find_all("p")] == [
        "Proof",
        "Hidden.",
        "Question",
        "Shown.",
    ]


def test_admonition_with_empty_title_has_no_title_bar_and_unknown_is_a_note():
    soup = soup_of('!!! note ""\n    Bare.\n\n!!! custom "Odd"\n    Kept.\n')

    bare, odd = soup.find_all("aside")
    assert bare.select_one(".callout-title") is None
    assert bare.get_text(strip=True) == "Bare."
    assert odd["class"] == ["callout", "callout-note"]
    assert odd.select_one(".callout-title").get_text() == "Odd"


def test_nested_admonitions():
    soup = soup_of('!!! note "Outer"\n    !!! danger "Inner"\n        Deep.\n')

    assert (
        soup.select_one(
            "aside.callout-note > aside.callout-danger p:not(.callout-title)"
        ).get_text()
        == "Deep."
    )


def test_content_tabs_become_headed_sections():
    text = (
        "## 关于\n\n"
        '=== "中文"\n\n'
        "    我写 CUDA。\n\n"
        "    - 一\n"
        "    - 二\n\n"
        '=== "English"\n'
        "    I write CUDA.\n\n"
        "Shared text.\n"
    )

    soup = soup_of(text)

    assert [(h.name, h.get_text()) for h in soup.find_all(["h2", "h3"])] == [
        ("h2", "关于"),
        ("h3", "中文"),
        ("h3", "English"),
    ]
    assert [li.get_text() for li in soup.find_all("li")] == ["一", "二"]
    assert [p.get_text() for p in soup.find_all("p")] == [
        "我写 CUDA。",
        "I write CUDA.",
        "Shared text.",
    ]
    assert "===" not in soup.get_text()


def test_attribute_lists_are_never_shown():
    text = (
        "## Layout { #layout .wide }\n\n"
        'A figure ![tile](tile.png){ width="200px" } and '
        "[a link](https://e.com){ width=300 } and ![b](b.png){: .center }.\n"
        '![c](c.png){ align=right style="max-width: 40%" }\n'
        "{: .caption }\n\n"
        "Braces in prose stay: {x} and set {a, b}.\n"
    )

    soup = soup_of(text)

    assert soup.h2.get_text() == "Layout"
    assert soup.h2["id"] == "layout"
    first, last = soup.find_all("p")
    assert " ".join(first.get_text().split()) == "A figure and a link and ."
    assert [img["src"] for img in first.find_all("img")] == [
        "tile.png",
        "b.png",
        "c.png",
    ]
    assert all(
        set(img.attrs) == {"src", "alt", "loading", "decoding"}
        for img in first.find_all("img")
    )
    assert last.get_text() == "Braces in prose stay: {x} and set {a, b}."


def test_blank_lines_inside_an_admonition_body_keep_it_open():
    text = (
        '!!! example "Two functions"\n'
        "    ```python\n"
        "    def a():\n"
        "        pass\n"
        "\n"
        "\n"
        "    def b():\n"
        "        pass\n"
        "    ```\n"
        "\n"
        "\n"
        "    Still inside.\n"
        "\n"
        "Outside.\n"
    )

    soup = soup_of(text)

    aside = soup.aside
    assert aside.select_one("code.language-python").get_text() == (
        "def a():\n    pass\n\n\ndef b():\n    pass\n"
    )
    assert aside.find_all("p")[-1].get_text() == "Still inside."
    assert soup.find_all("p", recursive=False)[-1].get_text() == "Outside."
    assert "```" not in soup.get_text()


def test_a_tab_set_is_one_level_below_the_heading_before_it():
    text = (
        "## Install\n\n"
        '=== "pip"\n    #### Note\n    Use a venv.\n\n'
        '=== "conda"\n    Use an env.\n\n'
        "Then:\n\n"
        '=== "Linux"\n    ok\n'
    )

    soup = soup_of(text)

    assert [(h.name, h.get_text()) for h in soup.find_all(["h2", "h3", "h4"])] == [
        ("h2", "Install"),
        ("h3", "pip"),
        ("h4", "Note"),
        ("h3", "conda"),
        ("h3", "Linux"),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "x" + " " * 100_000 + "{a=b} x }",
        "{a=b}" * 40_000 + "x",
        '{ a="' * 40_000,
        "\n\n".join(
            f'=== "t{n}"\n    body\n\n!!! note\n    n\n\n\n    m' for n in range(3000)
        ),
    ],
    ids=["spaces", "many-lists", "open-quotes", "tabs-and-admonitions"],
)
def test_mkdocs_syntax_takes_linear_time_on_hostile_input(text):
    started = time.perf_counter()
    render_markdown(text)
    assert time.perf_counter() - started < 10
