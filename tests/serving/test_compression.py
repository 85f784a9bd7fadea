"""Public pages go out in Brotli to browsers that take it; the rest in gzip."""

import gzip

import brotli
import pytest
from wagtail.models import PageViewRestriction

from tests.factories import PostPageFactory

BROWSER = "gzip, deflate, br, zstd"


@pytest.fixture
def post(home):
    return PostPageFactory(
        parent=home,
        slug="gemm",
        title="GEMM 优化",
        **{
            f"body__{i}__math__tex": f"\\sum_{{k={i}}}^{{K}} a_{{ik}} b_{{kj}}"
            for i in range(40)
        },
    )


def test_a_browser_gets_a_public_page_in_brotli(client, post):
    plain = client.get(post.url)
    response = client.get(post.url, HTTP_ACCEPT_ENCODING=BROWSER)

    assert response["Content-Encoding"] == "br"
    assert "Accept-Encoding" in response["Vary"]
    assert brotli.decompress(response.content) == plain.content
    assert int(response["Content-Length"]) == len(response.content)
    # Smaller than gzip's copy of the same page.
    gzipped = client.get(post.url, HTTP_ACCEPT_ENCODING="gzip")
    assert gzipped["Content-Encoding"] == "gzip"
    assert len(response.content) < len(gzipped.content)
    # Each encoding has its own tag, which answers a conditional request.
    assert len({response["ETag"], plain["ETag"], gzipped["ETag"]}) == 3
    again = client.get(
        post.url, HTTP_ACCEPT_ENCODING=BROWSER, HTTP_IF_NONE_MATCH=response["ETag"]
    )
    assert again.status_code == 304


def test_a_signed_in_editor_gets_gzip_which_is_padded_against_breach(
    admin_client, post
):
    for url in [post.url, "/admin/"]:
        response = admin_client.get(url, HTTP_ACCEPT_ENCODING=BROWSER)
        assert response.status_code == 200, url
        assert response["Content-Encoding"] == "gzip", url
        assert b"<html" in gzip.decompress(response.content), url


def test_a_page_with_a_form_token_gets_gzip(client, post):
    PageViewRestriction.objects.create(
        page=post, restriction_type=PageViewRestriction.PASSWORD, password="s3cret"
    )
    response = client.get(post.url, HTTP_ACCEPT_ENCODING=BROWSER)

    assert response.status_code == 200
    assert "csrftoken" in response.cookies
    assert response["Content-Encoding"] == "gzip"
    assert b"csrfmiddlewaretoken" in gzip.decompress(response.content)
