"""Every public page of the page cache tests' site, and how the tests visit them.

The site is the `site` fixture of tests/pagecache/conftest.py.
"""

# Every public page of the site, by what it is.
PAGES = {
    "home": "/",
    "section": "/cuda/",
    "series": "/cuda/cute/",
    "series feed": "/cuda/cute/feed/",
    "section feed": "/cuda/feed/",
    "first": "/cuda/cute/first/",
    "second": "/cuda/cute/second/",
    "third": "/cuda/cute/third/",
    "tag index": "/tags/",
    "tag cuda": "/tags/cuda/",
    "tag gemm": "/tags/gemm/",
    "tag csapp": "/tags/csapp/",
    "archive": "/archive/",
    "feed": "/feed/",
    "sitemap": "/sitemap.xml",
    "search": "/search/?q=GPU",
    "other section": "/notes/",
    "other post": "/notes/csapp/",
}


def fill(client):
    """Request every page until it is cached; return their HTML by name."""
    html = {}
    for name, url in PAGES.items():
        client.get(url)
        response = client.get(url)
        assert response["X-Page-Cache"] == "hit", url
        html[name] = response.content.decode()
    return html


def served_from_cache(client):
    """Return the names of the pages still answered from the cache."""
    return {
        name
        for name, url in PAGES.items()
        if client.get(url).get("X-Page-Cache") == "hit"
    }


def publish(page, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        page.save_revision().publish()
