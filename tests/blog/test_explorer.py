"""The explorer and 最近更新 beside every page, breadcrumbs, titles, listing headings.

The explorer is a fragment per folder that the page loads (``blog.explorer``);
its script marks the current page, as tests/e2e/test_explorer.py sees.
"""

import datetime
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from wagtail.models import PageViewRestriction

from blog.explorer import FOLDER_POSTS
from blog.models import PostPage
from blog.models.post import RECENT_COUNT
from tests.factories import PostPageFactory, SeriesPageFactory

OLD = datetime.date(2020, 1, 1)


@pytest.fixture
def site(home, tag_index, archive):
    cuda = SeriesPageFactory(parent=home, title="CUDA", slug="cuda", ordering="newest")
    cute = SeriesPageFactory(parent=cuda, title="CuTe", slug="cute")
    notes = SeriesPageFactory(parent=home, title="笔记", slug="notes")
    csapp = SeriesPageFactory(parent=notes, title="CSAPP", slug="csapp")
    return {
        "cuda": cuda,
        "cute": cute,
        "notes": notes,
        "csapp": csapp,
        "layout": PostPageFactory(parent=cute, title="布局代数", slug="layout"),
        "smem": PostPageFactory(
            parent=cuda, title="共享内存", slug="smem", tags=["cuda"]
        ),
        "link": PostPageFactory(parent=csapp, title="链接", slug="link", date=OLD),
    }


def slot(client, url) -> dict:
    """Return the attributes of the element the page loads its explorer into."""
    response = client.get(url)
    html = response.content.decode()
    found = re.search(r'<div class="explorer-slot"([^>]*)></div>', html)
    return dict(re.findall(r'([\w-]+)="([^"]*)"', found.group(1)))


def sidebar(client, url) -> str:
    """Return the explorer fragment the page at ``url`` loads."""
    response = client.get(slot(client, url)["data-explorer"])
    assert response.status_code == 200
    return response.content.decode()


def open_folders(html) -> list[str]:
    return re.findall(
        r'<a class="explorer-folder-link" href="([^"]+)"[^>]*>[^<]*</a>\s*<details open>',
        html,
    )


def explorer_posts(html) -> list[str]:
    return re.findall(r'class="explorer-post"><a href="([^"]+)"', html)


def current(html) -> list[str]:
    return re.findall(r'<a [^>]*href="([^"]+)" aria-current="page"', html)


@pytest.mark.parametrize(
    ("url", "fragment"),
    [
        ("/notes/csapp/link/", "/_explorer/notes/csapp/"),
        ("/notes/csapp/", "/_explorer/notes/csapp/"),
        ("/notes/", "/_explorer/notes/"),
        ("/", "/_explorer/"),
        ("/tags/cuda/", "/_explorer/"),
        ("/archive/", "/_explorer/"),
    ],
)
def test_a_page_loads_its_folders_explorer(client, site, url, fragment):
    assert slot(client, url)["data-explorer"] == fragment


def test_a_post_carries_its_title_for_the_explorer(client, site):
    assert slot(client, "/notes/csapp/link/")["data-post-title"] == "链接"
    assert "data-post-title" not in slot(client, "/notes/csapp/")


def test_a_post_shows_its_folders_open_and_only_theirs_posts(client, site):
    assert client.get("/_explorer/notes/csapp/")["X-Robots-Tag"] == "noindex"
    html = sidebar(client, "/notes/csapp/link/")
    assert open_folders(html) == ["/notes/", "/notes/csapp/"]
    assert explorer_posts(html) == ["/notes/csapp/link/"]
    # Shared by the folder's pages: none is marked here (explorer.js does it).
    assert current(html) == []
    # Every folder is there, closed, without its posts.
    for folder in ["/cuda/", "/cuda/cute/"]:
        assert f'<a class="explorer-folder-link" href="{folder}">' in html
    assert "/cuda/cute/layout/" not in html.split("最近更新")[0]


def test_a_series_page_lists_its_posts(client, site):
    html = sidebar(client, "/cuda/cute/")
    assert open_folders(html) == ["/cuda/", "/cuda/cute/"]
    # The series in the section, with its posts, then the section's own posts.
    assert explorer_posts(html) == ["/cuda/cute/layout/", "/cuda/smem/"]


@pytest.mark.parametrize("url", ["/", "/tags/", "/tags/cuda/", "/archive/", "/search/"])
def test_pages_outside_the_folders_show_every_folder_closed(client, site, url):
    html = sidebar(client, url)
    assert open_folders(html) == []
    assert html.count('class="explorer-folder"') == 4
    assert "最近更新" in html


def test_the_404_page_has_the_explorer(client, site):
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert 'data-explorer="/_explorer/"' in response.content.decode()


@pytest.mark.parametrize("path", ["/_explorer/nothing/", "/_explorer/notes/link/"])
def test_a_fragment_of_no_folder_is_missing(client, site, path):
    assert client.get(path).status_code == 404


def test_a_private_folder_has_no_fragment(client, site):
    PageViewRestriction.objects.create(
        page=site["csapp"], restriction_type="password", password="x"
    )
    assert client.get("/_explorer/notes/csapp/").status_code == 404
    assert "/notes/csapp/" not in sidebar(client, "/notes/")


def test_a_folders_pages_share_one_cached_fragment(client, site, settings):
    settings.PAGE_CACHE_SECONDS = 3600
    PostPageFactory(parent=site["csapp"], title="异常", slug="ecf")
    first = client.get(slot(client, "/notes/csapp/link/")["data-explorer"])
    again = client.get(slot(client, "/notes/csapp/ecf/")["data-explorer"])
    assert (first["X-Page-Cache"], again["X-Page-Cache"]) == ("miss", "hit")


def test_recent_updates_are_the_latest_by_updated(client, site):
    for n in range(RECENT_COUNT + 2):
        PostPageFactory(
            parent=site["cute"], slug=f"r{n}", updated=datetime.date(2027, 1, n + 1)
        )
    html = sidebar(client, "/archive/")
    recent = re.findall(r'<li><a href="([^"]+)"', html.split("最近更新")[1])
    expected = [f"/cuda/cute/r{n}/" for n in range(RECENT_COUNT + 1, 1, -1)]
    assert recent == expected


def test_a_long_folder_is_capped_with_a_link_and_keeps_the_current_post(client, site):
    for n in range(FOLDER_POSTS + 5):
        PostPageFactory(parent=site["csapp"], slug=f"p{n:02}", title=f"第{n}章")
    total = FOLDER_POSTS + 6
    html = sidebar(client, f"/notes/csapp/p{FOLDER_POSTS + 4:02}/")
    posts = explorer_posts(html)
    # Explorer order, the first FOLDER_POSTS.
    assert len(posts) == FOLDER_POSTS
    assert f"/notes/csapp/p{FOLDER_POSTS + 4:02}/" not in posts
    assert f'<a href="/notes/csapp/">全部 {total} 篇 →</a>' in html
    # Past the cap the post is not in the fragment; its page carries its
    # title, and explorer.js adds it, marked (tests/e2e/test_explorer.py).


def test_the_explorer_does_not_add_queries_as_posts_grow(client, site, settings):
    settings.LISTING_CACHE_SECONDS = 3600

    def count(url):
        client.get(url)
        with CaptureQueriesContext(connection) as captured:
            assert client.get(url).status_code == 200
        return len(captured)

    urls = ["/", "/cuda/cute/", "/cuda/cute/layout/", "/tags/cuda/", "/archive/"]
    before = {url: count(url) for url in urls}
    for n in range(60):
        PostPageFactory(parent=site["cute"], slug=f"g{n}", tags=["cuda"])
        PostPageFactory(parent=site["cuda"], slug=f"h{n}")
    after = {url: count(url) for url in urls}
    assert after == before
    assert max(after.values()) <= 10


def test_series_breadcrumbs_include_the_parent(client, site):
    html = client.get("/notes/csapp/").content.decode()
    crumbs = html[
        html.index('class="breadcrumbs"') : html.index(
            "</nav>", html.index('class="breadcrumbs"')
        )
    ]
    assert re.findall(r"<li[^>]*>(?:<a[^>]*>)?([^<]+)", crumbs) == [
        "首页",
        "笔记",
        "CSAPP",
    ]


def test_tag_page_breadcrumbs_lead_to_the_tag_index(client, site):
    html = client.get("/tags/cuda/").content.decode()
    start = html.index('class="breadcrumbs"')
    crumbs = html[start : html.index("</nav>", start)]
    assert 'href="/tags/"' in crumbs and 'aria-current="page">#cuda<' in crumbs


@pytest.mark.parametrize(
    ("url", "title"),
    [
        ("/", "测试博客"),
        ("/cuda/", "CUDA · 测试博客"),
        ("/notes/csapp/link/", "链接 · 测试博客"),
        ("/tags/cuda/", "#cuda · 测试博客"),
        ("/search/?q=x", "搜索：x · 测试博客"),
    ],
)
def test_titles_name_the_site_once(client, site, settings, url, title):
    settings.WAGTAIL_SITE_NAME = "测试博客"
    html = client.get(url).content.decode()
    assert re.search(r"<title>(.*?)</title>", html)[1] == title


def test_a_section_heads_its_own_posts_below_its_series(client, site):
    html = client.get("/cuda/").content.decode()
    main = html[html.index("<main") :]
    assert main.index(">系列</h2>") < main.index(">文章</h2>") < main.index("共享内存")


def test_publishing_an_older_post_shows_it_in_the_explorer_of_cached_pages_below(
    client, site, settings, django_capture_on_commit_callbacks
):
    settings.PAGE_CACHE_SECONDS = 3600
    settings.LISTING_CACHE_SECONDS = 3600
    for n in range(RECENT_COUNT):  # newer posts fill 最近更新
        PostPageFactory(parent=site["notes"], slug=f"new{n}")
    url = "/cuda/cute/layout/"
    client.get(url)
    assert client.get(url)["X-Page-Cache"] == "hit"
    other = "/notes/csapp/link/"
    client.get(other)

    post = PostPageFactory(
        parent=site["cuda"], slug="old", title="旧的新文章", date=OLD, live=False
    )
    with django_capture_on_commit_callbacks(execute=True):
        post.save_revision().publish()

    assert "/cuda/old/" in explorer_posts(sidebar(client, url))
    # Not on the recent list and not under /cuda/: that page stays cached.
    assert client.get(other)["X-Page-Cache"] == "hit"
    assert PostPage.objects.get(slug="old").live


# --- a folder's posts, loaded when a reader opens it ------------------------


def folder_fragment(client, path, **extra):
    response = client.get(f"/_explorer-posts{path}", **extra)
    return response, response.content.decode()


def test_a_closed_folder_is_marked_to_load_its_posts(client, site):
    html = sidebar(client, "/cuda/cute/layout/")
    # On the page's path: open, posts inside. Off it: closed, posts loaded.
    assert re.findall(r'href="([^"]+)">[^<]*</a>\s*<details data-posts>', html) == [
        "/notes/",
        "/notes/csapp/",
    ]
    assert "/notes/csapp/link/" not in html.split("最近更新")[0]


def test_a_folders_posts_fragment_lists_its_own_posts(client, site):
    response, html = folder_fragment(client, "/notes/csapp/")
    assert response.status_code == 200
    assert response["X-Robots-Tag"] == "noindex"
    assert explorer_posts(html) == ["/notes/csapp/link/"]
    assert "链接" in html
    # A section: its own posts, not those of its series (they have their own).
    assert explorer_posts(folder_fragment(client, "/cuda/")[1]) == ["/cuda/smem/"]
    assert "暂无文章" in folder_fragment(client, "/notes/")[1]


def test_a_long_folders_posts_fragment_is_capped_with_a_link(client, site):
    for n in range(FOLDER_POSTS + 5):
        PostPageFactory(parent=site["csapp"], slug=f"p{n:02}", title=f"第{n}章")
    html = folder_fragment(client, "/notes/csapp/")[1]
    assert len(explorer_posts(html)) == FOLDER_POSTS
    assert f'<a href="/notes/csapp/">全部 {FOLDER_POSTS + 6} 篇 →</a>' in html


@pytest.mark.parametrize(
    "path", ["/cuda/smem/", "/nothing/", "/notes/csapp/link/", "/tags/"]
)
def test_only_folders_have_a_posts_fragment(client, site, path):
    assert folder_fragment(client, path)[0].status_code == 404


def test_a_draft_or_private_folder_has_no_posts_fragment(client, site, home):
    draft = SeriesPageFactory(parent=home, title="草稿栏目", slug="draft")
    PostPageFactory(parent=draft, title="草稿里的文章", slug="inside")
    draft.unpublish()
    login = SeriesPageFactory(parent=home, title="登录栏目", slug="login")
    PostPageFactory(parent=login, title="登录后可见", slug="inside")
    PageViewRestriction.objects.create(page=login, restriction_type="login")
    secret = PostPageFactory(parent=site["cute"], title="有密码的文章", slug="pw")
    PageViewRestriction.objects.create(
        page=site["cute"], restriction_type="password", password="pw"
    )
    for path, names in [
        ("/draft/", ["草稿栏目", "草稿里的文章"]),
        ("/login/", ["登录栏目", "登录后可见"]),
        ("/cuda/cute/", ["CuTe", secret.title, "布局代数"]),
    ]:
        response, html = folder_fragment(client, path)
        assert response.status_code == 404, path
        assert not any(name in html for name in names), path


def test_a_posts_fragment_runs_few_queries_whatever_the_number_of_posts(
    client, site, settings
):
    def count():
        with CaptureQueriesContext(connection) as captured:
            assert folder_fragment(client, "/notes/csapp/")[0].status_code == 200
        return len(captured)

    folder_fragment(client, "/notes/csapp/")  # the site, kept by the process
    # Worked out: the folder; its view restrictions and whether the site has
    # any (may_see); the posts, their count riding along (blog.explorer._capped).
    cold = count()
    assert cold <= 6
    for n in range(60):
        PostPageFactory(parent=site["csapp"], slug=f"g{n}")
    assert count() == cold
    # Kept until the folder is purged: the folder alone (may_see's answers are
    # kept between requests too).
    settings.LISTING_CACHE_SECONDS = 3600
    folder_fragment(client, "/notes/csapp/")
    assert count() <= 2


def test_adding_or_removing_a_post_purges_its_folders_posts_fragment(
    client, site, settings, django_capture_on_commit_callbacks
):
    settings.PAGE_CACHE_SECONDS = 3600
    settings.LISTING_CACHE_SECONDS = 3600
    for n in range(RECENT_COUNT):  # newer posts fill 最近更新 elsewhere
        PostPageFactory(parent=site["notes"], slug=f"new{n}")
    url = "/_explorer-posts/notes/csapp/"
    other = "/_explorer-posts/cuda/"
    for path in (url, other):
        client.get(path)
        assert client.get(path)["X-Page-Cache"] == "hit"

    post = PostPageFactory(
        parent=site["csapp"], slug="ecf", title="异常控制流", date=OLD, live=False
    )
    with django_capture_on_commit_callbacks(execute=True):
        post.save_revision().publish()
    response = client.get(url)
    assert response["X-Page-Cache"] == "miss"
    assert "/notes/csapp/ecf/" in explorer_posts(response.content.decode())
    # Another folder's fragment stays cached.
    assert client.get(other)["X-Page-Cache"] == "hit"

    client.get(url)
    with django_capture_on_commit_callbacks(execute=True):
        PostPage.objects.get(slug="ecf").unpublish()
    response = client.get(url)
    assert "/notes/csapp/ecf/" not in explorer_posts(response.content.decode())

    client.get(url)
    with django_capture_on_commit_callbacks(execute=True):
        PostPage.objects.get(slug="link").delete()
    assert explorer_posts(client.get(url).content.decode()) == []
