"""The end of a post: previous/next, related posts, its tags and feeds, purged."""

import datetime
import re

import pytest

from blog.models import PostPage
from tests.factories import PostPageFactory, SeriesPageFactory


def day(n):
    return datetime.date(2025, 1, 1) + datetime.timedelta(days=n)


def get(client, post):
    response = client.get(post.url)
    assert response.status_code == 200
    return response.content.decode()


def end_of(html: str) -> str:
    begin = html.index('<footer class="post-footer">')
    return html[begin : html.index("</footer>", begin)]


def related_titles(html: str) -> list[str]:
    if '<section class="related-posts"' not in html:
        return []
    begin = html.index('<section class="related-posts"')
    part = html[begin : html.index("</section>", begin)]
    return re.findall(r'<li><a href="[^"]+">([^<]+)</a>', part)


def neighbour(html: str, rel: str) -> str | None:
    found = re.search(rf'rel="{rel}" href="([^"]+)"', end_of(html))
    return found.group(1) if found else None


@pytest.fixture
def cuda(home, tag_index):
    section = SeriesPageFactory(
        parent=home, title="CUDA", slug="cuda", ordering="newest"
    )
    posts = {
        slug: PostPageFactory(
            parent=section, title=title, slug=slug, date=day(n), tags=tags
        )
        for n, (slug, title, tags) in enumerate(
            [
                ("a", "甲", ["smem"]),
                ("b", "乙", ["gemm", "smem", "tma"]),
                ("c", "丙", ["gemm", "smem", "tma"]),  # the post read below
                ("d", "丁", []),
                ("e", "戊", ["gemm"]),
                ("f", "己", []),
                ("g", "庚", []),
                ("h", "辛", []),
                ("i", "壬", []),
                ("j", "癸", []),
            ]
        )
    }
    return section, posts


def test_a_section_post_links_to_the_older_and_newer_post_beside_it(client, cuda):
    section, posts = cuda
    html = get(client, posts["c"])
    assert neighbour(html, "prev") == posts["b"].url
    assert neighbour(html, "next") == posts["d"].url
    assert '<nav class="post-nav"' in html and "series-nav" not in html

    first = get(client, posts["a"])
    assert neighbour(first, "prev") is None
    assert neighbour(first, "next") == posts["b"].url


def test_related_posts_rank_shared_tags_then_the_section_nearest(client, cuda):
    section, posts = cuda
    elsewhere = SeriesPageFactory(parent=section.get_parent(), slug="llm")
    PostPageFactory(parent=elsewhere, title="外一", slug="x", tags=["gemm", "tma"])
    PostPageFactory(parent=elsewhere, title="外二", slug="y", date=day(1))
    html = get(client, posts["c"])
    # 乙 shares three tags but is the previous post: not repeated. 外一 shares
    # two, 戊 and 甲 one each (戊 newer); then the nearest in the section
    # after previous (乙) and next (丁): 己 (after), none left before.
    assert related_titles(html) == ["外一", "戊", "甲", "己"]
    assert "外二" not in end_of(html)


def test_a_post_without_tags_is_related_to_its_section_nearest(client, cuda):
    section, posts = cuda
    html = get(client, posts["g"])
    # Previous 己 and next 辛 are left out; then alternating: 戊, 壬, 丁, 癸.
    assert related_titles(html) == ["戊", "壬", "丁", "癸"]


def test_the_end_lists_the_tags_and_feeds_which_answer(client, cuda):
    section, posts = cuda
    html = get(client, posts["c"])
    end = end_of(html)
    for tag in ("gemm", "smem", "tma"):
        assert f'href="/tags/{tag}/"' in end
        assert f'href="/tags/{tag}/feed/"' in end
    assert 'href="/feed/"' in end and 'href="/cuda/feed/"' in end
    head = html[: html.index("</head>")]
    for url in ("/feed/", "/cuda/feed/", "/tags/tma/feed/"):
        assert re.search(
            rf'<link rel="alternate" type="application/atom\+xml" [^>]*'
            rf'href="http://[^"]+{re.escape(url)}"',
            head,
        ), url
        response = client.get(url)
        assert response.status_code == 200
        assert response["Content-Type"].startswith("application/atom+xml")


def test_a_series_post_has_one_previous_next_component(client, home):
    series = SeriesPageFactory(parent=home, title="CSAPP", slug="csapp")
    first, second, third = (
        PostPageFactory(parent=series, title=f"第{n}章", slug=f"ch{n}", date=day(9 - n))
        for n in range(1, 4)
    )
    html = get(client, second)
    # Reading order, not dates: the series' previous and next.
    assert neighbour(html, "prev") == first.url
    assert neighbour(html, "next") == third.url
    assert html.count('rel="prev"') == 1 and end_of(html).count("<nav") == 1
    assert "第 2 篇，共 3 篇" in end_of(html)


@pytest.fixture
def kept(settings):
    # As in production: the post's end is kept until a purge.
    settings.LISTING_CACHE_SECONDS = 3600


def test_publishing_unpublishing_and_moving_a_post_purge_its_neighbours(
    client, cuda, kept, django_capture_on_commit_callbacks
):
    section, posts = cuda
    assert neighbour(get(client, posts["d"]), "next") == posts["e"].url
    assert neighbour(get(client, posts["e"]), "prev") == posts["d"].url

    with django_capture_on_commit_callbacks(execute=True):
        new = PostPageFactory(
            parent=section, title="新篇", slug="new", date=day(3), live=False
        )
        new.save_revision().publish()
    # d (day 3, lower id) < new < e (day 4)
    assert neighbour(get(client, posts["d"]), "next") == new.url
    assert neighbour(get(client, posts["e"]), "prev") == new.url

    new.refresh_from_db()  # the publish saved another copy of it
    with django_capture_on_commit_callbacks(execute=True):
        new.unpublish()
    assert neighbour(get(client, posts["d"]), "next") == posts["e"].url
    assert neighbour(get(client, posts["e"]), "prev") == posts["d"].url

    other = SeriesPageFactory(parent=section.get_parent(), slug="other")
    with django_capture_on_commit_callbacks(execute=True):
        PostPage.objects.get(pk=posts["e"].pk).move(other, pos="last-child")
    assert neighbour(get(client, posts["d"]), "next") == posts["f"].url
    assert neighbour(get(client, posts["f"]), "prev") == posts["d"].url


def test_publishing_a_post_purges_the_posts_sharing_a_tag(
    client, cuda, kept, django_capture_on_commit_callbacks
):
    section, posts = cuda
    elsewhere = SeriesPageFactory(parent=section.get_parent(), slug="llm")
    assert "新的 TMA" not in related_titles(get(client, posts["c"]))
    with django_capture_on_commit_callbacks(execute=True):
        new = PostPageFactory(
            parent=elsewhere, title="新的 TMA", slug="tma", live=False
        )
        new.tags.add("tma", "gemm", "smem")
        new.save_revision().publish()
    assert related_titles(get(client, posts["c"]))[0] == "新的 TMA"
