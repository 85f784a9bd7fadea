"""Security headers: Content-Security-Policy, Permissions-Policy and the rest."""

import base64
import hashlib

import pytest
from django.urls import reverse

from blog.blocks import FIGURE_SIZE_SCRIPT
from serving.security import inline_script_sources
from tests.blog.admin.editing import form_data
from tests.factories import PostPageFactory

FIGURE_SCRIPT = "\n  document.body.dataset.ran = 'yes';\n"
FIGURE_HTML = (
    "<!doctype html><p>图</p>"
    f"<script>{FIGURE_SCRIPT}</script>"
    '<script src="lib.js"></script>'
    "<script>draw(1)</script>"
)


def directives(response) -> dict[str, list[str]]:
    policy = response["Content-Security-Policy"]
    return {
        name: values
        for name, *values in (
            part.split() for part in policy.split(";") if part.strip()
        )
    }


def sha256_source(script: str) -> str:
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    return f"'sha256-{digest}'"


@pytest.fixture
def post(home):
    return PostPageFactory(parent=home, slug="plain", title="没有图")


@pytest.fixture
def figure_post(home):
    post = PostPageFactory(parent=home, slug="figure", title="有图")
    post.body = [("html_figure", {"html": FIGURE_HTML, "height": 200, "caption": ""})]
    post.save_revision().publish()
    return post


@pytest.mark.parametrize(
    "url", ["/", "/plain/", "/feed/", "/no-such-page/", "/admin/login/"]
)
def test_every_response_carries_the_sites_policies(client, post, url):
    response = client.get(url)
    policy = directives(response)
    assert policy["script-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert policy["base-uri"] == ["'self'"]
    assert "camera=()" in response["Permissions-Policy"]
    assert "geolocation=()" in response["Permissions-Policy"]
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"]
    assert response["X-Frame-Options"] == "DENY"


def figure_src(response) -> str:
    """Return the URL of the first figure's document on a page."""
    from bs4 import BeautifulSoup

    frame = BeautifulSoup(response.content, "html.parser").select_one(
        "figure.block-html-figure iframe"
    )
    assert frame["sandbox"] == ["allow-scripts"]
    assert not frame.has_attr("srcdoc")
    return frame["src"]


def test_a_page_with_a_figure_allows_no_inline_script(client, figure_post):
    response = client.get(figure_post.url)
    assert response.status_code == 200
    # The figure's scripts would run in the page itself as well.
    assert directives(response)["script-src"] == ["'self'"]
    assert "sha256-" not in response["Content-Security-Policy"]


def test_a_figure_s_document_allows_its_inline_scripts_and_no_others(
    client, figure_post
):
    response = client.get(figure_src(client.get(figure_post.url)))
    assert response.status_code == 200
    assert response.content.decode() == FIGURE_HTML + FIGURE_SIZE_SCRIPT
    policy = directives(response)
    # Not the external one: it is loaded from the figure's own (opaque) origin.
    # The last sizes the figure's frame to its content.
    assert set(policy["script-src"]) == {
        sha256_source(FIGURE_SCRIPT),
        sha256_source("draw(1)"),
        *inline_script_sources(FIGURE_SIZE_SCRIPT),
    }
    # Sandboxed even when opened on its own, and framed by this site only.
    assert policy["sandbox"] == ["allow-scripts"]
    assert policy["frame-ancestors"] == ["'self'"]
    assert response["X-Frame-Options"] == "SAMEORIGIN"
    assert set(policy["img-src"]) == {"'self'", "data:", "https:"}
    assert policy["object-src"] == ["'none'"]


def test_a_figure_without_scripts_allows_only_its_sizing_script(client, home):
    post = PostPageFactory(parent=home, slug="svg", title="静态图")
    post.body = [("html_figure", {"html": "<svg></svg>", "height": 90, "caption": ""})]
    post.save_revision().publish()
    response = client.get(figure_src(client.get(post.url)))
    assert response.content.decode() == "<svg></svg>" + FIGURE_SIZE_SCRIPT
    assert directives(response)["script-src"] == inline_script_sources(
        FIGURE_SIZE_SCRIPT
    )


def test_a_cached_figure_keeps_its_policy(client, figure_post, settings):
    settings.PAGE_CACHE_SECONDS = 3600
    page = client.get(figure_post.url)
    client.get(figure_src(page))
    cached = client.get(figure_src(page))
    assert cached["X-Page-Cache"] == "hit"
    policy = directives(cached)
    assert sha256_source(FIGURE_SCRIPT) in policy["script-src"]
    assert "'self'" not in policy["script-src"]
    assert policy["sandbox"] == ["allow-scripts"]
    assert cached["X-Frame-Options"] == "SAMEORIGIN"
    again = client.get(figure_post.url)
    assert again["X-Page-Cache"] == "hit"
    assert directives(again)["script-src"] == ["'self'"]
    assert again["X-Frame-Options"] == "DENY"


def test_carriage_returns_are_hashed_as_the_browser_reads_them(home):
    from serving.security import figure_script_sources

    html = '<iframe sandbox="allow-scripts" srcdoc="&lt;script&gt;a()\r\nb()\r&lt;/script&gt;">'
    assert figure_script_sources(html) == [sha256_source("a()\nb()\n")]


def test_the_preview_may_be_framed_by_the_editor_only(admin_client, figure_post):
    url = reverse("wagtailadmin_pages:preview_on_edit", args=[figure_post.pk])
    figure = {"html": FIGURE_HTML, "height": "200", "caption": ""}
    posted = admin_client.post(url, form_data([("html_figure", figure)]))
    assert posted.json()["is_valid"] is True
    response = admin_client.get(url, {"in_preview_panel": "true"})
    assert response.status_code == 200
    assert response["X-Frame-Options"] == "SAMEORIGIN"
    policy = directives(response)
    assert policy["frame-ancestors"] == ["'self'"]
    assert sha256_source(FIGURE_SCRIPT) in policy["script-src"]


def test_admin_pages_allow_their_own_inline_scripts_by_hash_only(admin_client, home):
    from bs4 import BeautifulSoup

    response = admin_client.get(f"/admin/pages/{home.pk}/edit/")
    assert response.status_code == 200
    page = response.content.decode()
    scripts = [
        tag.string or ""
        for tag in BeautifulSoup(page, "html.parser").find_all("script")
        if not tag.get("src")
    ]
    assert scripts, "the editor has inline scripts"
    script_src = directives(response)["script-src"]
    assert "'unsafe-inline'" not in script_src
    assert {sha256_source(script) for script in scripts} <= set(script_src)


@pytest.mark.parametrize("page_cache", [0, 3600])
def test_a_304_leaves_the_policy_the_browser_has(
    client, figure_post, settings, page_cache
):
    settings.PAGE_CACHE_SECONDS = page_cache
    first = client.get(figure_post.url)
    again = client.get(figure_post.url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304
    assert "Content-Security-Policy" not in again
