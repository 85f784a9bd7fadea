"""A page's password is refused for a while after repeated wrong guesses
from one address, like an admin login (blog/page_passwords.py, django-axes)."""

import datetime
import time

import pytest
from django.test import override_settings
from django.urls import reverse
from wagtail.models import Page, PageViewRestriction

from tests.factories import PostPageFactory, SeriesPageFactory

PASSWORD = "s3cret-passage"  # noqa: S105
LIMIT = 5  # AXES_FAILURE_LIMIT
ALICE = "203.0.113.7"
BOB = "198.51.100.9"


def protect(page):
    return PageViewRestriction.objects.create(
        page=page, restriction_type=PageViewRestriction.PASSWORD, password=PASSWORD
    )


@pytest.fixture
def posts(home):
    first = PostPageFactory(parent=home, slug="protected", title="受保护的文章")
    second = PostPageFactory(parent=home, slug="also-protected", title="另一篇")
    return [(first, protect(first)), (second, protect(second))]


def try_password(client, page, restriction, password, address):
    url = reverse(
        "wagtailcore_authenticate_with_password", args=[restriction.id, page.id]
    )
    return client.post(
        url,
        {"password": password, "return_url": page.url or "/"},
        REMOTE_ADDR=address,
    )


def can_read(client, page, address):
    response = client.get(page.url, REMOTE_ADDR=address)
    return response.status_code == 200 and page.title in response.content.decode()


def test_wrong_passwords_lock_the_page_for_that_address(client, posts):
    (page, restriction), (other_page, other_restriction) = posts
    for _ in range(LIMIT):
        wrong = try_password(client, page, restriction, "guess", ALICE)
        assert wrong.status_code == 200
        assert "errorlist" in wrong.content.decode()  # Wagtail's "not correct"
        assert "输错次数过多" not in wrong.content.decode()

    locked = try_password(client, page, restriction, PASSWORD, ALICE)
    assert locked.status_code == 429
    assert "输错次数过多" in locked.content.decode()
    assert 'name="password"' in locked.content.decode()  # the form, with the error
    assert not can_read(client, page, ALICE)

    # Another address may still give the right password for that page.
    assert try_password(client, page, restriction, PASSWORD, BOB).status_code == 302
    assert can_read(client, page, BOB)


def test_a_locked_page_does_not_lock_another_page(client, posts):
    (page, restriction), (other_page, other_restriction) = posts
    for _ in range(LIMIT + 1):
        try_password(client, page, restriction, "guess", ALICE)
    assert try_password(client, page, restriction, PASSWORD, ALICE).status_code == 429

    right = try_password(client, other_page, other_restriction, PASSWORD, ALICE)
    assert right.status_code == 302
    assert can_read(client, other_page, ALICE)


def test_the_lock_expires(client, posts):
    (page, restriction), _ = posts
    with override_settings(AXES_COOLOFF_TIME=datetime.timedelta(seconds=1)):
        for _ in range(LIMIT):
            try_password(client, page, restriction, "guess", ALICE)
        refused = try_password(client, page, restriction, PASSWORD, ALICE)
        assert refused.status_code == 429
        time.sleep(1.2)
        assert try_password(client, page, restriction, PASSWORD, ALICE).status_code == (
            302
        )
    assert can_read(client, page, ALICE)


def test_the_right_password_clears_earlier_failures(client, posts):
    (page, restriction), _ = posts
    for _ in range(LIMIT - 1):
        try_password(client, page, restriction, "guess", ALICE)
    assert try_password(client, page, restriction, PASSWORD, ALICE).status_code == 302
    for _ in range(LIMIT - 1):
        try_password(client, page, restriction, "guess", ALICE)
    assert try_password(client, page, restriction, PASSWORD, ALICE).status_code == 302


@pytest.fixture
def protected_series(home):
    """A series under one password, two posts in it; a public post beside it."""
    series = SeriesPageFactory(parent=home, slug="private-notes", title="私密笔记")
    first = PostPageFactory(parent=series, slug="one", title="第一篇")
    second = PostPageFactory(parent=series, slug="two", title="第二篇")
    public = PostPageFactory(parent=home, slug="public", title="公开文章")
    return protect(series), series, first, second, public


def test_guesses_count_against_the_password_whichever_page_the_url_names(
    client, protected_series
):
    restriction, series, first, second, _ = protected_series
    for page in (series, first, second, series, first):
        wrong = try_password(client, page, restriction, "guess", ALICE)
        assert wrong.status_code == 200
    for page in (series, first, second):
        locked = try_password(client, page, restriction, PASSWORD, ALICE)
        assert locked.status_code == 429
        assert "输错次数过多" in locked.content.decode()
    assert not can_read(client, first, ALICE)


def test_a_page_the_password_does_not_guard_is_refused_and_counts_nothing(
    client, protected_series
):
    restriction, series, first, _, public = protected_series
    draft = PostPageFactory(parent=series, slug="draft", title="草稿", live=False)
    strangers = [public, draft, Page.objects.get(depth=1)]
    for page in strangers:
        for _ in range(LIMIT):
            assert try_password(
                client, page, restriction, "guess", ALICE
            ).status_code == (404)
        # Not even the right password opens anything through a page it does
        # not guard.
        right = try_password(client, page, restriction, PASSWORD, ALICE)
        assert right.status_code == 404
        assert "草稿" not in right.content.decode()
    assert not can_read(client, first, ALICE)
    # None of those guesses was counted against the password.
    assert try_password(client, first, restriction, PASSWORD, ALICE).status_code == 302
    assert can_read(client, first, ALICE)


def test_a_locked_out_address_cannot_unlock_through_another_page_id(
    client, protected_series
):
    restriction, series, first, second, public = protected_series
    for _ in range(LIMIT):
        try_password(client, series, restriction, "guess", ALICE)
    for page in (first, second, public):
        right = try_password(client, page, restriction, PASSWORD, ALICE)
        assert right.status_code in (404, 429)
    assert not can_read(client, first, ALICE)
    assert not can_read(client, series, ALICE)


def test_the_lock_follows_the_reader_behind_the_proxy(client, settings, posts):
    """Behind a trusted proxy, the lock is the reader's, not the proxy's."""
    settings.TRUSTED_PROXIES = ["127.0.0.1"]
    (page, restriction), _ = posts
    url = reverse(
        "wagtailcore_authenticate_with_password", args=[restriction.id, page.id]
    )

    def guess(password, reader, forged=""):
        chain = f"{forged}, {reader}" if forged else reader
        return client.post(
            url,
            {"password": password, "return_url": page.url},
            REMOTE_ADDR="127.0.0.1",
            HTTP_X_FORWARDED_FOR=chain,
        )

    # A reader who writes a new address into the header each time is still
    # counted by the address the proxy saw.
    for n in range(LIMIT):
        guess("guess", ALICE, forged=f"192.0.2.{n}")
    assert guess(PASSWORD, ALICE, forged="192.0.2.99").status_code == 429
    # Another reader behind the same proxy is not locked out.
    assert guess(PASSWORD, BOB).status_code == 302
