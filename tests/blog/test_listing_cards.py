"""Listing rows (post cards, archive lines): rendered once, again when purged.

The page cache is off here (the test settings), so what these pages show comes
from the rows kept in the render cache.
"""

import re

import pytest
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext
from taggit.models import Tag

from tests.factories import PostPageFactory, SeriesPageFactory


@pytest.fixture(autouse=True)
def listing_cache_on(settings):
    settings.LISTING_CACHE_SECONDS = 3600


def tag_queries(captured) -> int:
    return sum('"taggit_tag"' in query["sql"] for query in captured.captured_queries)


def cards(html: str) -> list[str]:
    return re.findall(r'<article class="post-card">.*?</article>', html, re.S)


def test_a_listing_shown_again_renders_its_cards_from_the_cache(client, home):
    for number in range(3):
        PostPageFactory(parent=home, title=f"第 {number} 篇", tags=["cuda", "gemm"])
    caches["renders"].clear()
    with CaptureQueriesContext(connection) as cold:
        first = client.get("/").content.decode()
    with CaptureQueriesContext(connection) as warm:
        again = client.get("/").content.decode()

    assert len(cards(first)) == 3
    assert cards(again) == cards(first)
    assert "#cuda" in cards(again)[0] and "#gemm" in cards(again)[0]
    assert tag_queries(cold) == 1  # The tags of every card, in one query.
    assert tag_queries(warm) == 0


def test_a_published_retag_shows_on_every_listing_of_the_post(
    client, home, tag_index, django_capture_on_commit_callbacks
):
    section = SeriesPageFactory(parent=home, title="CUDA", slug="cuda")
    post = PostPageFactory(parent=section, title="共享内存", tags=["cuda"])
    listings = ["/", "/cuda/", "/tags/cuda/"]
    for url in listings:
        assert "#triton" not in client.get(url).content.decode()

    # Only the tags change: nothing the card's key holds of the post itself.
    post.tags.add("triton")
    with django_capture_on_commit_callbacks(execute=True):
        post.save_revision().publish()

    for url in listings:
        shown = "".join(cards(client.get(url).content.decode()))
        assert "共享内存" in shown and "#triton" in shown, url


def test_a_renamed_tag_shows_on_the_cards_of_its_posts(
    client, home, django_capture_on_commit_callbacks
):
    PostPageFactory(parent=home, title="量化入门", tags=["cuda"])
    assert "#cuda" in client.get("/").content.decode()

    with django_capture_on_commit_callbacks(execute=True):
        tag = Tag.objects.get(name="cuda")
        tag.name = "CUDA C++"
        tag.save()

    shown = "".join(cards(client.get("/").content.decode()))
    assert "#CUDA C++" in shown and "#cuda<" not in shown


def test_a_row_saved_without_publishing_shows_on_its_card(client, home):
    post = PostPageFactory(parent=home, title="草稿前", tags=["cuda"])
    assert "草稿前" in client.get("/").content.decode()
    post.title = "直接保存"
    post.save()  # No revision, no purge: the card's own fields change its key.
    assert "直接保存" in "".join(cards(client.get("/").content.decode()))


def test_the_archive_shows_a_retitled_post_once_it_is_published(
    client, home, archive, django_capture_on_commit_callbacks
):
    post = PostPageFactory(parent=home, title="旧的标题")
    assert "旧的标题" in client.get("/archive/").content.decode()

    post.title = "新的标题"
    with django_capture_on_commit_callbacks(execute=True):
        post.save_revision().publish()

    html = client.get("/archive/").content.decode()
    assert "新的标题" in html and "旧的标题" not in html
    assert f'<a href="{post.url}">新的标题</a>' in html


def test_a_published_series_shows_on_its_parent_and_a_section_in_the_header(
    client, home, django_capture_on_commit_callbacks
):
    notes = SeriesPageFactory(parent=home, title="笔记", slug="notes")
    assert "CSAPP 精读" not in client.get("/notes/").content.decode()
    assert "GPU 架构" not in client.get("/").content.decode()

    with django_capture_on_commit_callbacks(execute=True):
        nested = SeriesPageFactory(parent=notes, title="CSAPP 精读", slug="csapp")
        nested.save_revision().publish()
        section = SeriesPageFactory(parent=home, title="GPU 架构", slug="gpu")
        section.save_revision().publish()

    assert 'href="/notes/csapp/"' in client.get("/notes/").content.decode()
    header = client.get("/tags/").content.decode().split("</header>")[0]
    assert 'href="/gpu/"' in header
    home_sections = client.get("/").content.decode().split('class="section-list"')[1]
    assert "GPU 架构" in home_sections
