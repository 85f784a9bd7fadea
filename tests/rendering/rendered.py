"""Render Markdown for a test and read back what a reader sees."""

from bs4 import BeautifulSoup

from rendering import render_markdown


def soup_of(text: str) -> BeautifulSoup:
    return BeautifulSoup(render_markdown(text), "html.parser")


def formulas(soup: BeautifulSoup) -> list[tuple[str, bool]]:
    """Return (tex, display) for every KaTeX formula in ``soup``."""
    return [
        (
            span.find("annotation").get_text(),
            span.find_parent(class_="katex-display") is not None,
        )
        for span in soup.find_all(class_="katex")
    ]
