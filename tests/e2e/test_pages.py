"""Every page type in a real Chromium: no errors, no sideways scroll, screenshots.

Screenshots of each page, light and dark, desktop and phone, are written to
`test-artifacts/screenshots/` for a person to look at.
"""

import re
import urllib.request

import pytest

from tests.e2e.pages import FIGURE_POST, HOME, MATH_POST, PHONE, page_params

pytestmark = pytest.mark.e2e

SCHEMES = ("light", "dark")

# The elements, outside any scrolling box, that stick out past the viewport's
# right edge: what to fix when the page scrolls sideways.
OVERFLOWING_ELEMENTS = """() => {
    const limit = document.documentElement.clientWidth;
    const clipped = (el) => {
        for (let p = el.parentElement; p; p = p.parentElement) {
            const o = getComputedStyle(p).overflowX;
            if (o !== "visible") return p !== document.documentElement
                && p !== document.body;
        }
        return false;
    };
    const describe = (el) => el.tagName.toLowerCase()
        + (el.id ? "#" + el.id : "")
        + (el.className && typeof el.className === "string"
            ? "." + el.className.trim().split(/\\s+/).join(".") : "");
    return [...document.body.querySelectorAll("*")]
        .filter((el) => el.getBoundingClientRect().right > limit + 1 && !clipped(el))
        .slice(0, 10)
        .map((el) => `${describe(el)} (right edge ${
            Math.round(el.getBoundingClientRect().right)} px)`);
}"""

BACKGROUND_LUMINANCE = """() => {
    const [r, g, b] = getComputedStyle(document.body).backgroundColor
        .match(/[\\d.]+/g).map(Number);
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
}"""


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("demo_page", page_params())
def test_page_loads_without_console_errors(
    open_page, screenshot_dir, demo_page, scheme
):
    page, problems = open_page(demo_page, color_scheme=scheme)
    page.screenshot(
        path=screenshot_dir / f"{demo_page.name}-{scheme}.png", full_page=True
    )

    assert problems.errors == []


@pytest.mark.parametrize("demo_page", page_params())
def test_page_does_not_scroll_sideways_on_a_390px_phone(
    open_page, screenshot_dir, demo_page
):
    page, problems = open_page(demo_page, viewport=PHONE)
    page.screenshot(path=screenshot_dir / f"{demo_page.name}-phone.png", full_page=True)
    scroll_width = page.evaluate("document.documentElement.scrollWidth")
    inner_width = page.evaluate("window.innerWidth")

    assert scroll_width <= inner_width, page.evaluate(OVERFLOWING_ELEMENTS)
    assert problems.errors == []


@pytest.mark.parametrize("demo_page", [HOME, MATH_POST], ids=lambda p: p.name)
def test_dark_color_scheme_gives_a_dark_page(open_page, demo_page):
    light_page, _ = open_page(demo_page, color_scheme="light")
    dark_page, _ = open_page(demo_page, color_scheme="dark")

    assert light_page.evaluate(BACKGROUND_LUMINANCE) > 0.8
    assert dark_page.evaluate(BACKGROUND_LUMINANCE) < 0.2


def test_site_has_a_favicon(open_page):
    # Without one, every first visit logs a 404 for /favicon.ico in the console,
    # which Lighthouse's best-practices score counts against the site.
    page, _ = open_page(HOME)
    href = page.evaluate(
        "document.querySelector('link[rel~=icon]')?.href"
        " || new URL('/favicon.ico', location).href"
    )

    response = page.request.get(href)

    assert response.status == 200, f"{href} answered {response.status}"
    assert response.headers["content-type"].startswith("image/")


def test_gunicorn_serves_the_demo_images_without_a_proxy(demo_server):
    # As `make serve` does: DEBUG off, media on disk, nothing in front.
    with urllib.request.urlopen(demo_server.url + FIGURE_POST.path) as response:  # noqa: S310
        html = response.read().decode()
    urls = set(re.findall(r"/media/[^\s\"',]+", html))
    assert any(url.startswith("/media/images/") for url in urls), urls

    for url in urls:
        with urllib.request.urlopen(demo_server.url + url) as response:  # noqa: S310
            assert response.status == 200, url
            assert response.headers["Content-Type"].startswith("image/"), url
            assert response.headers["X-Content-Type-Options"] == "nosniff"
            if url.startswith("/media/images/"):
                assert "immutable" in response.headers["Cache-Control"], url
