"""Emoji shortcodes become emoji; icon shortcodes vanish; code, math, URLs untouched."""

from bs4 import BeautifulSoup

from rendering import render_markdown


def text_of(markdown: str) -> str:
    return BeautifulSoup(render_markdown(markdown), "html.parser").get_text()


def test_emoji_shortcodes_become_emoji():
    text = text_of("> :warning: 注意:book:读完 :rocket:, :+1: and :white_check_mark:")

    assert text.strip() == "⚠️ 注意📖读完 🚀, 👍 and ✅"


def test_adjacent_shortcodes_each_become_emoji():
    text = text_of(":skull::skull: :+1::rocket::white_check_mark: a:skull::book:")

    # The last: a shortcode after a letter stays text, and so does what
    # follows it; std::move's colons are not a shortcode either.
    assert text.strip() == "💀💀 👍🚀✅ a:skull::book:"


def test_an_icon_beside_an_emoji_is_dropped_and_the_emoji_kept():
    text = text_of("x :material-check::rocket: :rocket::material-check: y")

    assert text.split() == ["x", "🚀", "🚀", "y"]


def test_icon_shortcodes_are_dropped():
    text = text_of(
        "Inbox :fontawesome-solid-inbox: :material-check: :octicons-mark-github-16: done"
    )

    assert ":" not in text
    assert text.split() == ["Inbox", "done"]


def test_shortcodes_inside_code_math_and_urls_are_left_alone():
    html = render_markdown(
        "`:warning:` and <https://e.com/:book:> and https://e.com/:rocket: and "
        "[x](https://e.com/:book:)\n\n```\n:warning:\n```\n"
    )
    soup = BeautifulSoup(html, "html.parser")

    assert [code.get_text() for code in soup.find_all("code")] == [
        ":warning:",
        ":warning:\n",
    ]
    assert [a["href"] for a in soup.find_all("a")] == [
        "https://e.com/:book:",
        "https://e.com/:book:",
    ]
    assert "https://e.com/:rocket:" in soup.get_text()


def test_times_ratios_and_unknown_names_stay_text():
    text = text_of("At 12:30:45, ratio 1:2:3, std::move, :not_an_emoji_name: ok")

    assert text.strip() == "At 12:30:45, ratio 1:2:3, std::move, :not_an_emoji_name: ok"


def test_math_keeps_its_colons():
    soup = BeautifulSoup(render_markdown("$a:smile:b$"), "html.parser")

    assert soup.find("annotation").get_text() == "a:smile:b"
