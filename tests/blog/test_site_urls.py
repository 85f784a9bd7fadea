"""Absolute URLs come from the Wagtail Site's root URL, never from the request:
a page rendered for a plain-HTTP request (a proxy without X-Forwarded-Proto,
SECURE_SSL_REDIRECT off) and kept by the page cache carries no http:// URL."""

import datetime
import json
import re
import xml.etree.ElementTree as ET

import pytest
from wagtail.models import Site

from tests.factories import PostPageFactory, SeriesPageFactory

ORIGIN = "https://example.com"
# Any absolute URL of this site in what is served, quoted or in text.
ABSOLUTE = re.compile(r"""(?:https?:)?//[^\s"'<>)]+""")
# Absolute URLs that are not the site's own (namespaces, schema.org).
FOREIGN = ("http://www.w3.org/", "https://schema.org", "http://www.sitemaps.org/")


@pytest.fixture
def site(home, settings):
    Site.objects.filter(root_page=home).update(hostname="example.com", port=443)
    settings.PAGE_CACHE_SECONDS = 3600
    home.author = "刘芷溢"
    home.save()
    cuda = SeriesPageFactory(parent=home, title="CUDA", slug="cuda")
    post = PostPageFactory(
        parent=cuda,
        title="FlashAttention 笔记",
        slug="flash",
        date=datetime.date(2026, 9, 18),
        tags=["cuda"],
    )
    return {"cuda": cuda, "post": post}


def site_urls(text: str) -> list[str]:
    urls = [url for url in ABSOLUTE.findall(text) if not url.startswith(FOREIGN)]
    assert urls, "no absolute URL found"
    return urls


def assert_all_on_the_site(text: str):
    for url in site_urls(text):
        assert url.startswith(ORIGIN + "/") or url == ORIGIN, url


def head_of(response) -> str:
    assert response.status_code == 200
    return response.content.decode().split("</head>")[0]


def test_a_post_over_plain_http_names_only_the_sites_https_urls(client, site):
    head = head_of(client.get("/cuda/flash/"))  # http://testserver

    assert f'<link rel="canonical" href="{ORIGIN}/cuda/flash/"' in head
    assert f'content="{ORIGIN}/cuda/flash/"' in head  # og:url
    assert_all_on_the_site(head)
    script = head.split('<script type="application/ld+json">')[1].split("</script>")
    data = json.loads(script[0])
    posting = next(item for item in data["@graph"] if item["@type"] == "BlogPosting")
    assert posting["url"] == f"{ORIGIN}/cuda/flash/"
    assert "http://testserver" not in head


def test_the_cached_page_keeps_no_request_scheme(client, site):
    first = client.get("/cuda/flash/")  # plain http fills the page cache
    assert first["X-Page-Cache"] == "miss"
    again = client.get("/cuda/flash/", secure=True)  # an https reader
    assert again["X-Page-Cache"] == "hit"
    assert_all_on_the_site(head_of(again))
    assert "http://" not in head_of(again).replace("http://www.w3.org/", "")


@pytest.mark.parametrize("path", ["/feed/", "/cuda/feed/", "/tags/cuda/feed/"])
def test_feeds_over_plain_http_name_only_the_sites_https_urls(client, site, path):
    response = client.get(path)
    assert response.status_code == 200
    text = response.content.decode()
    feed = ET.fromstring(response.content)  # noqa: S314  our own output
    atom = "{http://www.w3.org/2005/Atom}"
    hrefs = [link.get("href") for link in feed.iter(f"{atom}link")]
    assert f"{ORIGIN}{path}" in hrefs  # rel="self"
    assert f"{ORIGIN}/cuda/flash/" in hrefs  # the entry
    assert_all_on_the_site(text)


def test_sitemap_and_robots_over_plain_http_name_the_sites_https_urls(client, site):
    robots = client.get("/robots.txt").content.decode()
    assert f"Sitemap: {ORIGIN}/sitemap.xml" in robots

    index = client.get("/sitemap.xml")
    assert index.status_code == 200
    assert f"<loc>{ORIGIN}/sitemap-pages.xml</loc>" in index.content.decode()
    assert_all_on_the_site(index.content.decode())
    # Kept, and again on the site's URLs for an https request.
    again = client.get("/sitemap.xml", secure=True).content.decode()
    assert_all_on_the_site(again)

    pages = client.get("/sitemap-pages.xml").content.decode()
    assert f"<loc>{ORIGIN}/cuda/flash/</loc>" in pages
    assert_all_on_the_site(pages)


def test_a_site_left_as_migrate_made_it_uses_the_configured_base_url(
    home, client, settings
):
    # No one set the Site (localhost, port 80): the deployment's address from
    # the environment is used, still never the request's.
    settings.WAGTAILADMIN_BASE_URL = "https://blog.example.org"
    html = client.get("/", HTTP_HOST="127.0.0.1").content.decode()
    canonical = re.search(r'<link rel="canonical" href="([^"]+)"', html).group(1)
    assert canonical == "https://blog.example.org/"
