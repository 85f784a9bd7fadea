"""The end of a post and the rough edges of its body, in a browser.

A post outside any series leads on: previous/next, related posts, its tags
and its feeds. Numbered formulas, code and figures read well on a phone and
in dark mode.
"""

import re

import pytest

from scripts.support.pages import FIGURE_POST, MATH_POST, DemoPage
from tests.e2e.pages import DESKTOP, PHONE

pytestmark = pytest.mark.e2e

# In the /cuda/ section, with older and newer posts beside it.
SECTION_POST = DemoPage("post-section", "/cuda/ilp-and-mlp/")
# A Markdown block with fenced code in it.
MARKDOWN_CODE_POST = DemoPage("post-markdown", "/cuda/cuda-performance-checklist/")
# Code with highlighted lines.
HIGHLIGHT_POST = DemoPage("post-highlight", "/cuda/cuda-basic-concept/")

HREFS = "(links) => links.map((a) => new URL(a.href).pathname)"


def path_of(page, selector):
    return page.eval_on_selector(selector, "(a) => new URL(a.href).pathname")


def tags_of(page):
    return set(page.eval_on_selector_all(".post-end-tags a.tag", HREFS))


def test_a_section_post_ends_with_neighbours_related_posts_tags_and_feeds(
    open_page,
):
    page, problems = open_page(SECTION_POST)
    here = SECTION_POST.path
    previous = path_of(page, ".post-footer a[rel=prev]")
    following = path_of(page, ".post-footer a[rel=next]")
    tags = tags_of(page)
    related = page.eval_on_selector_all(".related-posts a", HREFS)
    feeds = page.eval_on_selector_all(".post-feeds a", HREFS)
    alternates = page.eval_on_selector_all(
        'head link[rel=alternate][type="application/atom+xml"]',
        "(links) => links.map((l) => new URL(l.href).pathname)",
    )
    assert problems.errors == []

    # The neighbours are in the same section, and lead back here.
    assert previous.startswith("/cuda/") and following.startswith("/cuda/")
    page.goto(previous)
    assert path_of(page, ".post-footer a[rel=next]") == here
    page.goto(following)
    assert path_of(page, ".post-footer a[rel=prev]") == here

    # Related posts: 3 to 5, none of them this post or its neighbours, each
    # sharing a tag with it or in its section.
    assert 3 <= len(related) <= 5
    assert not {here, previous, following} & set(related)
    for path in related:
        page.goto(path)
        assert path.startswith("/cuda/") or tags & tags_of(page), path

    # Its tags, and every feed it is in, linked and announced in the head.
    assert tags and all(re.fullmatch(r"/tags/[^/]+/", tag) for tag in tags)
    expected = {"/feed/", "/cuda/feed/", *(f"{tag}feed/" for tag in tags)}
    assert set(feeds) == expected
    assert expected <= set(alternates)
    for feed in feeds:
        response = page.request.get(feed)
        assert response.status == 200, feed
        assert response.headers["content-type"].startswith(
            ("application/atom+xml", "application/rss+xml")
        ), feed


NUMBERED_FORMULAS = """() => [...document.querySelectorAll('.block-math.has-label')]
    .map((block) => {
        const formula = block.querySelector('.katex-display');
        const a = formula.getBoundingClientRect();
        const b = block.querySelector('.math-label').getBoundingClientRect();
        const overlap = a.left < b.right && b.left < a.right
            && a.top < b.bottom && b.top < a.bottom;
        return {overlap, scrolls: formula.scrollWidth > formula.clientWidth};
    })"""


def test_numbered_formulas_on_a_phone_scroll_clear_of_their_number(open_page):
    page, problems = open_page(MATH_POST, viewport=PHONE)
    formulas = page.evaluate(NUMBERED_FORMULAS)
    assert formulas, "no numbered formula on the page"
    assert not any(formula["overlap"] for formula in formulas)
    # The long one scrolls inside its box; the page itself does not.
    assert any(formula["scrolls"] for formula in formulas)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert problems.errors == []


def test_markdown_code_has_the_code_block_s_label_numbers_and_copy_button(
    open_page,
):
    page, problems = open_page(
        MARKDOWN_CODE_POST,
        viewport=DESKTOP,
        permissions=("clipboard-read", "clipboard-write"),
    )
    frame = page.locator(".block-markdown figure.block-code").first
    assert frame.locator(".code-language").inner_text().strip() != ""
    assert frame.locator("td.linenos").count() == 1
    code = frame.locator("td.code code").inner_text()

    page.evaluate("navigator.clipboard.writeText('')")
    frame.locator("button.copy-button").click()
    page.wait_for_function("async () => (await navigator.clipboard.readText()) !== ''")
    assert page.evaluate("navigator.clipboard.readText()").rstrip("\n") == (
        code.rstrip("\n")
    )
    assert problems.errors == []


CONTRAST = """() => {
    const rgb = (colour) => colour.match(/[\\d.]+/g).slice(0, 3).map(Number);
    const luminance = (colour) => {
        const [r, g, b] = rgb(colour).map((c) => {
            c /= 255;
            return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
        });
        return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const line = document.querySelector('.highlight .hll');
    const comment = document.querySelector('.highlight .c1, .highlight .cm');
    const a = luminance(getComputedStyle(line).backgroundColor);
    const b = luminance(getComputedStyle(comment).color);
    return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_comments_on_highlighted_lines_stay_readable(open_page, scheme):
    page, problems = open_page(HIGHLIGHT_POST, color_scheme=scheme)
    assert page.evaluate(CONTRAST) >= 4.5
    assert problems.errors == []


def test_an_interactive_figure_on_a_phone_takes_its_content_s_height(open_page):
    page, problems = open_page(FIGURE_POST, viewport=PHONE)
    frame = page.locator(".block-html-figure iframe").first
    frame.scroll_into_view_if_needed()
    document = next(f for f in page.frames if "/figures/" in f.url)
    document.wait_for_load_state("load")
    content = document.evaluate(
        "Math.ceil(document.documentElement.getBoundingClientRect().height)"
    )
    page.wait_for_function(
        "([el, h]) => Math.abs(el.clientHeight - h) <= 4",
        arg=[frame.element_handle(), content],
    )
    # No empty band below the figure, and nothing cut off.
    assert abs(frame.evaluate("(el) => el.clientHeight") - content) <= 4
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert problems.errors == []
