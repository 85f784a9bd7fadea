"""Drafts, scheduled, expired and private posts never show on a public page.

One public post and one of each kind that must stay hidden, all in the same
series, with the same tag, linking to the public post and saying a word of
their own. Every page a reader or a feed reader can reach is then read.
"""

import datetime

import pytest
from django.contrib.auth.models import Group
from django.utils import timezone
from wagtail.models import PageViewRestriction
from wagtail.rich_text import RichText

from tests.factories import PostPageFactory, SeriesPageFactory

HIDDEN = ["draft", "scheduled", "expired", "password", "login", "groups", "section"]


def marker(kind: str) -> str:
    return f"机密{kind}"


@pytest.fixture
def site(home, tag_index, archive):
    series = SeriesPageFactory(parent=home, title="CUDA", slug="cuda")
    private_section = SeriesPageFactory(parent=home, title="内部", slug="inside")
    public = PostPageFactory(
        parent=series, title="公开的文章", slug="public", tags=["cuda"]
    )
    link = RichText(f'<p>参见 <a linktype="page" id="{public.pk}">公开的文章</a>。</p>')
    now = timezone.now()
    hidden = {}
    for n, kind in enumerate(HIDDEN):
        fields = {}
        if kind == "draft":
            fields = {"live": False}
        elif kind == "scheduled":
            fields = {"live": False, "go_live_at": now + datetime.timedelta(days=3)}
        elif kind == "expired":
            fields = {
                "live": False,
                "expired": True,
                "expire_at": now - datetime.timedelta(days=1),
            }
        post = PostPageFactory(
            parent=private_section if kind == "section" else series,
            title=f"{marker(kind)} 文章",
            slug=f"hidden-{kind}",
            summary=f"{marker(kind)} 摘要",
            date=datetime.date(2026, 10, 1 + n),  # newer than the public one
            tags=["cuda"],
            **fields,
        )
        post.body = [("paragraph", link)]
        post.save()
        hidden[kind] = post
    restrict = PageViewRestriction.objects.create
    restrict(
        page=hidden["password"],
        restriction_type=PageViewRestriction.PASSWORD,
        password="secret",
    )
    restrict(page=hidden["login"], restriction_type=PageViewRestriction.LOGIN)
    groups = restrict(
        page=hidden["groups"], restriction_type=PageViewRestriction.GROUPS
    )
    groups.groups.add(Group.objects.create(name="内部读者"))
    restrict(page=private_section, restriction_type=PageViewRestriction.LOGIN)
    return {"public": public, **hidden}


PUBLIC_URLS = [
    "/",
    "/cuda/",
    "/cuda/public/",
    "/cuda/feed/",
    "/tags/",
    "/tags/cuda/",
    "/tags/cuda/feed/",
    "/archive/",
    "/feed/",
    "/sitemap.xml",
    "/sitemap-pages.xml",
    "/search/?q=机密",
    "/search/?q=文章",
]


@pytest.mark.parametrize("url", PUBLIC_URLS)
def test_no_public_page_shows_a_hidden_post(client, site, url):
    response = client.get(url)
    assert response.status_code == 200, url
    html = response.content.decode()
    for kind in HIDDEN:
        assert marker(kind) not in html, f"{kind} shows on {url}"
        assert f"hidden-{kind}" not in html, f"{kind}'s URL shows on {url}"


def test_the_public_post_lists_no_hidden_backlink_or_neighbour(client, site):
    html = client.get("/cuda/public/").content.decode()
    assert "公开的文章" in html
    assert "机密" not in html


def test_hidden_posts_answer_as_wagtail_intends(client, site):
    for kind in ("draft", "scheduled", "expired"):
        assert client.get(site[kind].url or f"/cuda/hidden-{kind}/").status_code == 404
    password = client.get("/cuda/hidden-password/")
    assert password.status_code == 200
    assert 'name="password"' in password.content.decode()
    assert marker("password") not in password.content.decode().split("<main")[-1]
    for url in (
        "/cuda/hidden-login/",
        "/cuda/hidden-groups/",
        "/inside/hidden-section/",
    ):
        response = client.get(url)
        assert response.status_code == 302, url
        assert "/login" in response["Location"], url


@pytest.mark.parametrize("url", ["/admin/", "/admin/pages/", "/django-admin/"])
def test_anonymous_visitors_cannot_reach_the_admin(client, db, url):
    response = client.get(url)
    assert response.status_code == 302
    assert "login" in response["Location"]


def test_a_private_post_has_no_social_image(client, site):
    assert client.get(f"/social/{site['public'].pk}.png").status_code == 200
    for kind in ("password", "login", "groups", "section", "draft"):
        assert client.get(f"/social/{site[kind].pk}.png").status_code == 404, kind


def test_counts_leave_hidden_posts_out(client, site):
    assert "1 篇文章" in client.get("/cuda/").content.decode()
    tags = client.get("/tags/").content.decode()
    assert 'cuda</a> <span class="count">1' in tags
