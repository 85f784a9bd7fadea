"""Comments and the reader: private posts stay private, and each reader is
counted by their own address, behind a proxy too."""

import threading

import pytest
from bs4 import BeautifulSoup
from django.contrib.auth.models import Group
from django.urls import reverse
from django_comments_xtd.models import XtdComment
from wagtail.models import PageViewRestriction

from comments.forms import PostCommentForm
from comments.views import _take_turn
from tests.factories import PostPageFactory

PASSWORD = "s3cret-passage"  # noqa: S105
PROXY = "127.0.0.1"
SECRET_TITLE = "绝密草稿标题"


@pytest.fixture
def public_post(home):
    return PostPageFactory(parent=home, slug="open", title="公开", allow_comments=True)


def private_post(home, kind):
    post = PostPageFactory(
        parent=home, slug=f"hidden-{kind}", title=SECRET_TITLE, allow_comments=True
    )
    restriction = PageViewRestriction.objects.create(
        page=post,
        restriction_type=kind,
        password=PASSWORD if kind == PageViewRestriction.PASSWORD else "",
    )
    if kind == PageViewRestriction.GROUPS:
        restriction.groups.add(Group.objects.create(name="读者"))
    return post


def published_comment(post, text="公开的评论"):
    comment = XtdComment.objects.create(
        content_object=post,
        site_id=1,
        user_name="早到的读者",
        comment=text,
        is_public=True,
    )
    return comment


def form_data(post, **fields):
    data = PostCommentForm(post).initial.copy()
    data.update(name="读者", email="", comment="路过", honeypot="", reply_to="0")
    data.update(fields)
    return data


def names_nothing(response, post):
    html = response.content.decode()
    return SECRET_TITLE not in html and post.url not in html and "路过" not in html


KINDS = [
    PageViewRestriction.PASSWORD,
    PageViewRestriction.LOGIN,
    PageViewRestriction.GROUPS,
]


@pytest.mark.parametrize("kind", KINDS)
def test_replying_on_a_private_post_is_missing(client, home, kind):
    post = private_post(home, kind)
    comment = published_comment(post)
    response = client.get(reverse("comments-reply", args=[comment.pk]))
    assert response.status_code == 404
    assert names_nothing(response, post)
    assert "公开的评论" not in response.content.decode()


@pytest.mark.parametrize("kind", KINDS)
def test_commenting_on_a_private_post_is_missing_and_names_nothing(client, home, kind):
    post = private_post(home, kind)
    good = client.post(reverse("comments-post"), form_data(post))
    forged = client.post(
        reverse("comments-post"), form_data(post, security_hash="0" * 40)
    )
    for response in (good, forged):
        assert response.status_code == 404
        assert names_nothing(response, post)
    assert not XtdComment.objects.exists()


def test_a_draft_is_missing_to_the_comment_views(client, home):
    draft = PostPageFactory(
        parent=home, slug="draft", title=SECRET_TITLE, allow_comments=True, live=False
    )
    comment = published_comment(draft)
    assert client.get(reverse("comments-reply", args=[comment.pk])).status_code == 404
    response = client.post(reverse("comments-post"), form_data(draft))
    assert response.status_code == 404
    assert names_nothing(response, draft)


def test_no_refusal_names_the_post(client, public_post):
    forged = client.post(
        reverse("comments-post"), form_data(public_post, security_hash="0" * 40)
    )
    assert forged.status_code == 400
    # The page around it lists public posts (the explorer); the refusal does not.
    refusal = BeautifulSoup(forged.content, "html.parser").select_one(".comments-page")
    assert "评论未能通过检查" in refusal.get_text()
    assert public_post.title not in refusal.get_text()
    assert not refusal.select(f'a[href="{public_post.url}"]')


def test_a_reader_who_gave_the_password_may_reply(client, home):
    post = private_post(home, PageViewRestriction.PASSWORD)
    comment = published_comment(post)
    restriction = PageViewRestriction.objects.get(page=post)
    given = client.post(
        reverse(
            "wagtailcore_authenticate_with_password", args=[restriction.pk, post.pk]
        ),
        {"password": PASSWORD, "return_url": post.url},
    )
    assert given.status_code == 302
    reply = client.get(reverse("comments-reply", args=[comment.pk]))
    assert reply.status_code == 200
    assert SECRET_TITLE in reply.content.decode()
    sent = client.post(reverse("comments-post"), form_data(post))
    assert sent.status_code == 200
    assert XtdComment.objects.filter(is_public=False).count() == 1


def test_a_signed_in_reader_may_comment_on_a_login_post(
    client, home, django_user_model
):
    post = private_post(home, PageViewRestriction.LOGIN)
    client.force_login(django_user_model.objects.create_user("reader", password="x"))
    assert client.post(reverse("comments-post"), form_data(post)).status_code == 200


def send_via_proxy(client, post, reader=None, **fields):
    extra = {"REMOTE_ADDR": PROXY}
    if reader:
        extra["HTTP_X_FORWARDED_FOR"] = reader
    return client.post(reverse("comments-post"), form_data(post, **fields), **extra)


@pytest.fixture
def behind_a_proxy(settings):
    settings.TRUSTED_PROXIES = [PROXY]


def test_behind_the_proxy_one_spammer_does_not_mark_everyone(
    client, public_post, behind_a_proxy
):
    send_via_proxy(client, public_post, "203.0.113.66", comment="买药")
    XtdComment.objects.update(is_removed=True)  # a moderator marks it as spam
    assert send_via_proxy(client, public_post, "198.51.100.2").status_code == 200
    assert send_via_proxy(client, public_post, "203.0.113.66").status_code == 200
    comments = XtdComment.objects.order_by("pk")
    assert comments[1].ip_address == "198.51.100.2"
    assert comments[1].is_removed is False  # held for a moderator, not spam
    assert comments[2].is_removed is True  # the spammer's own next comment


def test_a_proxys_own_address_is_never_held_against_a_reader(
    client, public_post, behind_a_proxy
):
    send_via_proxy(client, public_post, None, comment="买药")
    XtdComment.objects.update(is_removed=True)
    assert send_via_proxy(client, public_post, None).status_code == 200
    assert XtdComment.objects.order_by("pk").last().is_removed is False


def test_behind_the_proxy_each_reader_has_a_rate_of_their_own(
    client, public_post, behind_a_proxy
):
    for n in range(8):
        response = send_via_proxy(client, public_post, f"198.51.100.{n}")
        assert response.status_code == 200
    for _ in range(4):
        send_via_proxy(client, public_post, "198.51.100.0", comment="又一条")
    refused = send_via_proxy(client, public_post, "198.51.100.0", comment="第六条")
    assert refused.status_code == 429
    assert XtdComment.objects.count() == 8 + 4


def test_a_header_from_a_client_that_is_not_the_proxy_is_not_believed(
    client, public_post, behind_a_proxy
):
    client.post(
        reverse("comments-post"),
        form_data(public_post),
        REMOTE_ADDR="192.0.2.50",
        HTTP_X_FORWARDED_FOR="198.51.100.7",
    )
    assert XtdComment.objects.get().ip_address == "192.0.2.50"


def test_comments_sent_at_once_cannot_pass_the_rate_together(db, settings):
    """Eight comments racing from one address: five turns, however they interleave."""
    settings.COMMENTS_RATE = 5
    start = threading.Barrier(8)
    turns = []

    def send():
        start.wait()
        turns.append(_take_turn("203.0.113.9"))

    threads = [threading.Thread(target=send) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(turns) == [False] * 3 + [True] * 5
