"""A page's password is refused for a while after repeated wrong guesses
from one address, like an admin login (blog/page_passwords.py, django-axes)."""

import datetime
import time

import pytest
from django.test import override_settings
from django.urls import reverse
from wagtail.models import PageViewRestriction

from tests.factories import PostPageFactory

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
        url, {"password": password, "return_url": page.url}, REMOTE_ADDR=address
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
