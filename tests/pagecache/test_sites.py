"""The request's site and whether any page is private, kept between requests.

Both are kept in the render cache until the next site-wide purge; changing a
site or a view restriction is such a purge. These tests turn the keeping on
(as in production) and check that what readers get follows every change.
"""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from wagtail.models import PageViewRestriction, Site

from tests.factories import PostPageFactory, SeriesPageFactory


@pytest.fixture(autouse=True)
def listing_cache_on(settings):
    settings.LISTING_CACHE_SECONDS = 3600
    settings.ALLOWED_HOSTS = ["testserver", "other.example"]


def queries_of(table: str, captured) -> int:
    """Count the queries that read rows of ``table`` (not subqueries of it)."""
    start = f'SELECT "{table}".'
    return sum(query["sql"].startswith(start) for query in captured.captured_queries)


def test_a_page_served_again_asks_for_neither_its_site_nor_its_restrictions(
    client, home
):
    post = PostPageFactory(parent=home, title="共享内存")
    client.get(post.url)
    with CaptureQueriesContext(connection) as again:
        response = client.get(post.url)

    assert response.status_code == 200
    assert "共享内存" in response.content.decode()
    assert queries_of("wagtailcore_site", again) == 0
    assert queries_of("wagtailcore_pageviewrestriction", again) == 0


def test_a_new_password_applies_at_once(
    client, home, django_capture_on_commit_callbacks
):
    post = PostPageFactory(
        parent=home,
        title="共享内存",
        body__0__paragraph__value="<p>bank conflict 的细节</p>",
    )
    assert "bank conflict 的细节" in client.get(post.url).content.decode()

    with django_capture_on_commit_callbacks(execute=True):
        restriction = PageViewRestriction.objects.create(
            page=post, restriction_type=PageViewRestriction.PASSWORD, password="s3cret"
        )
    locked = client.get(post.url).content.decode()
    assert 'type="password"' in locked
    assert "bank conflict 的细节" not in locked

    with django_capture_on_commit_callbacks(execute=True):
        restriction.delete()
    assert 'type="password"' not in client.get(post.url).content.decode()


def test_a_site_moved_to_another_root_serves_the_new_root_at_once(
    client, home, django_capture_on_commit_callbacks
):
    cuda = SeriesPageFactory(parent=home, title="CUDA 专栏", slug="cuda")
    notes = SeriesPageFactory(parent=home, title="读书笔记", slug="notes")
    with django_capture_on_commit_callbacks(execute=True):
        other = Site.objects.create(hostname="other.example", root_page=cuda)
    assert "CUDA 专栏" in client.get("/", HTTP_HOST="other.example").content.decode()

    with django_capture_on_commit_callbacks(execute=True):
        other.root_page = notes
        other.save()
    shown = client.get("/", HTTP_HOST="other.example").content.decode()
    assert "读书笔记" in shown.split("<main", 1)[-1]
    assert "CUDA 专栏" not in shown.split("<main", 1)[-1]


def test_a_published_home_page_is_served_at_once(
    client, home, django_capture_on_commit_callbacks
):
    client.get("/")
    home.intro = "<p>新的自我介绍</p>"
    # Home is served as the kept site holds it; publishing it purges the site.
    with django_capture_on_commit_callbacks(execute=True):
        home.save_revision().publish()

    assert "新的自我介绍" in client.get("/").content.decode()


def test_home_is_served_from_the_kept_site_without_reading_pages(client, home):
    client.get("/")
    with CaptureQueriesContext(connection) as again:
        assert client.get("/").status_code == 200
    assert queries_of("wagtailcore_page", again) == 0
    assert queries_of("blog_homepage", again) == 0


def test_wagtail_takes_the_site_the_middleware_gives_the_request(rf, home):
    """What pagecache.sites relies on: ``Site.find_for_request`` reads the site
    Wagtail keeps on ``request._wagtail_site`` before asking the database."""
    kept = Site.objects.get()
    request = rf.get("/")
    request._wagtail_site = kept
    with CaptureQueriesContext(connection) as asked:
        assert Site.find_for_request(request) is kept
    assert asked.captured_queries == []


def test_the_kept_sites_choose_as_wagtail_does(home):
    """``choose_site`` is Wagtail's rule over sites already read: pinned here."""
    from wagtail.models.sites import get_site_for_hostname

    from pagecache.sites import _all_sites, choose_site

    Site.objects.update(hostname="blog.example", port=443)
    Site.objects.create(hostname="blog.example", port=8080, root_page=home)
    Site.objects.create(hostname="other.example", port=80, root_page=home)
    Site.objects.create(hostname="twin.example", port=80, root_page=home)
    Site.objects.create(hostname="twin.example", port=81, root_page=home)
    hosts = ["blog.example", "other.example", "twin.example", "nowhere.example", ""]
    for default in (True, False):
        Site.objects.filter(hostname="blog.example", port=443).update(
            is_default_site=default
        )
        sites = _all_sites()
        for hostname in hosts:
            for port in (80, 81, 443, 8080, 9999):
                try:
                    expected = get_site_for_hostname(hostname, port).pk
                except Site.DoesNotExist:
                    expected = None
                chosen = choose_site(sites, hostname, port)
                assert (chosen.pk if chosen else None) == expected, (hostname, port)


def test_hosts_a_request_makes_up_keep_nothing_more(client, home, settings):
    """Any letter case, trailing dot or port of an allowed host: one kept entry."""
    settings.ALLOWED_HOSTS = ["localhost", "127.0.0.1"]
    settings.PAGE_CACHE_SECONDS = 3600
    post = PostPageFactory(parent=home, title="共享内存")
    hosts = ["localhost", "LOCALHOST", "localhost.", "localhost:40001", "Localhost:1"]
    responses = [client.get(post.url, HTTP_HOST=host) for host in hosts]
    assert [r.status_code for r in responses] == [200] * len(hosts)
    assert [r["X-Page-Cache"] for r in responses] == ["miss"] + ["hit"] * 4
