"""What a reader gets of the imported pages: their text and HTML, and which there are."""

from bs4 import BeautifulSoup
from wagtail.models import Page

from blog.models import PostPage, SeriesPage


def reader_text(html: str) -> tuple[str, BeautifulSoup]:
    """Return the article's text without code, math sources and scripts."""
    soup = BeautifulSoup(html, "html.parser")
    article = soup.find("main") or soup
    for node in article.find_all(["pre", "code", "script", "style", "annotation"]):
        node.decompose()
    for node in article.select(".katex-mathml"):
        node.decompose()
    return article.get_text(" "), article


def pages():
    return [
        page
        for page in Page.objects.live().specific().order_by("path")
        if isinstance(page, PostPage | SeriesPage) and page.depth > 2
    ]


def page_html(client, source_path: str) -> str:
    page = PostPage.objects.get(source_path=source_path)
    response = client.get(page.url)
    assert response.status_code == 200
    html = response.content.decode()
    start = html.index('class="post-body')
    return html[start:]
