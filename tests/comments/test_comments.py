"""Readers comment on posts that allow it; a moderator decides what is shown."""

import json
import time

import pytest
from bs4 import BeautifulSoup
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django_comments_xtd.models import XtdComment

from comments import forms as comment_forms
from comments.forms import PostCommentForm
from tests.factories import PostPageFactory, SeriesPageFactory
from tests.math_bombs import SMALL_BOMB

MODERATE = "/admin/comments/"


@pytest.fixture(autouse=True)
def page_cache_on(settings):
    settings.PAGE_CACHE_SECONDS = 3600


@pytest.fixture
def post(home):
    series = SeriesPageFactory(parent=home, title="CUDA", slug="cuda")
    return PostPageFactory(
        parent=series, title="共享内存", slug="smem", allow_comments=True
    )


def form_data(post, **fields):
    """Return what the post page's form sends: its hidden fields and these."""
    data = PostCommentForm(post).initial.copy()
    data.update(name="读者", email="", comment="好文 $x^2$", honeypot="", reply_to="0")
    data.update(fields)
    return data


def send(client, post, **fields):
    return client.post(reverse("comments-post"), form_data(post, **fields))


def section(client, post):
    response = client.get(post.url)
    soup = BeautifulSoup(response.content, "html.parser")
    return response, soup.select_one("#comments")


def approve(admin_client, comment, action="approve"):
    return admin_client.post(
        f"{MODERATE}?state=pending", {"action": f"{action}.{comment.pk}"}
    )


def test_a_new_comment_is_held_and_not_shown(client, post):
    response = send(client, post)
    assert response.status_code == 200
    assert "评论已提交，审核后显示" in response.content.decode()
    comment = XtdComment.objects.get()
    assert comment.is_public is False
    assert comment.user_name == "读者"
    _, shown = section(client, post)
    assert "还没有评论" in shown.get_text()
    assert "好文" not in shown.get_text()


def test_the_form_in_the_cached_page_holds_no_csrf_token(client, post):
    first = client.get(post.url)
    again = client.get(post.url)
    assert again["X-Page-Cache"] == "hit"
    assert b"csrfmiddlewaretoken" not in first.content
    assert not first.cookies
    form = BeautifulSoup(first.content, "html.parser").select_one(".comment-form")
    assert form["action"] == reverse("comments-post")
    assert form.select_one("[name=security_hash]")["value"]


def test_approving_shows_the_comment_with_math_and_purges_the_page(
    client, admin_client, post, django_capture_on_commit_callbacks
):
    send(client, post)
    client.get(post.url)
    assert client.get(post.url)["X-Page-Cache"] == "hit"
    comment = XtdComment.objects.get()

    with django_capture_on_commit_callbacks(execute=True):
        response = approve(admin_client, comment)
    assert response.status_code == 302

    page, shown = section(client, post)
    assert page["X-Page-Cache"] == "miss"
    assert "评论 1 条" in " ".join(shown.select_one("h2").get_text().split())
    body = shown.select_one(f"#comment-{comment.pk} .comment-body")
    assert "好文" in body.get_text()
    assert body.select_one(".katex annotation").get_text() == "x^2"
    assert "$x^2$" not in body.get_text()
    # KaTeX's stylesheet comes with typeset comments.
    assert "katex.min" in page.content.decode()


def approved(client, admin_client, post, capture, text):
    """Return the comment of ``text``, sent and approved."""
    send(client, post, comment=text)
    comment = XtdComment.objects.get()
    with capture(execute=True):
        approve(admin_client, comment)
    return comment


def test_a_comment_with_a_macro_bomb_shows_its_source_and_the_page_stays_small(
    client, admin_client, post, django_capture_on_commit_callbacks
):
    text = f"看这个 ${SMALL_BOMB}$ 如何？"
    assert len(text) < 400
    comment = approved(
        client, admin_client, post, django_capture_on_commit_callbacks, text
    )

    page, shown = section(client, post)

    assert len(page.content) < 100_000
    body = shown.select_one(f"#comment-{comment.pk} .comment-body")
    assert body.select_one(".math-error code").get_text() == SMALL_BOMB
    assert not body.select(".katex")
    assert "如何" in body.get_text()


def test_a_comments_formulas_together_are_bounded_like_one(
    client, admin_client, post, django_capture_on_commit_callbacks
):
    # Each just under the bound for one formula (about 190 KB of HTML).
    leaf = r"\overbrace{abcdefghijkl}" * 8
    formula = rf"\def\a{{{leaf}}}\def\b{{\a\a\a\a\a\a\a\a\a}}\b"
    text = " ".join(f"${formula}$" for _ in range(12))
    assert len(text) < 3000
    comment = approved(
        client, admin_client, post, django_capture_on_commit_callbacks, text
    )

    page, shown = section(client, post)

    assert len(page.content) < 400_000
    body = shown.select_one(f"#comment-{comment.pk} .comment-body")
    assert len(body.select(".katex")) == 1
    assert len(body.select(".math-error")) == 11


@pytest.mark.parametrize("action", ["delete", "spam"])
def test_deleting_or_spamming_hides_the_comment_and_purges_the_page(
    client, admin_client, post, action, django_capture_on_commit_callbacks
):
    send(client, post)
    comment = XtdComment.objects.get()
    with django_capture_on_commit_callbacks(execute=True):
        approve(admin_client, comment)
    client.get(post.url)
    assert "好文" in section(client, post)[1].get_text()

    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post(
            f"{MODERATE}?state=public", {"action": f"{action}.{comment.pk}"}
        )

    page, shown = section(client, post)
    assert page["X-Page-Cache"] == "miss"
    assert "好文" not in shown.get_text()
    if action == "spam":
        assert XtdComment.objects.get().is_removed
        listing = admin_client.get(f"{MODERATE}?state=spam").content.decode()
        assert "好文" in listing
    else:
        assert not XtdComment.objects.exists()


def test_a_reply_is_threaded_under_its_comment(
    client, admin_client, post, django_capture_on_commit_callbacks
):
    send(client, post, comment="第一条")
    parent = XtdComment.objects.get()
    with django_capture_on_commit_callbacks(execute=True):
        approve(admin_client, parent)
    reply_page = client.get(reverse("comments-reply", args=[parent.pk]))
    assert reply_page.status_code == 200
    assert "第一条" in reply_page.content.decode()
    send(client, post, comment="回复一下", reply_to=str(parent.pk))
    reply = XtdComment.objects.exclude(pk=parent.pk).get()
    assert (reply.parent_id, reply.level, reply.is_public) == (parent.pk, 1, False)
    with django_capture_on_commit_callbacks(execute=True):
        approve(admin_client, reply)

    _, shown = section(client, post)
    nested = shown.select_one(
        f"#comment-{parent.pk} .comment-replies #comment-{reply.pk}"
    )
    assert "回复一下" in nested.get_text()


def test_the_honeypot_rejects_a_comment(client, post):
    response = send(client, post, honeypot="http://spam.example")
    assert response.status_code == 400
    assert not XtdComment.objects.exists()


def test_a_forged_security_hash_is_refused(client, post):
    response = send(client, post, security_hash="0" * 40)
    assert response.status_code == 400
    assert not XtdComment.objects.exists()


def test_more_than_five_comments_in_ten_minutes_are_refused(client, post):
    for n in range(5):
        assert send(client, post, comment=f"第 {n} 条").status_code == 200
    response = send(client, post, comment="第六条，我写了很久")
    assert response.status_code == 429
    html = response.content.decode()
    assert "评论太频繁了" in html
    assert "第六条，我写了很久" in html  # what the reader typed is kept
    assert XtdComment.objects.count() == 5


def test_errors_are_shown_in_chinese_beside_the_fields_and_keep_the_text(client, post):
    response = send(client, post, name="", email="not-an-email", comment="留着这段话")
    assert response.status_code == 400
    soup = BeautifulSoup(response.content, "html.parser")
    assert (
        "请填写称呼" in soup.select_one(".comment-field-name .comment-error").get_text()
    )
    assert "邮箱" in soup.select_one(".comment-field-email .comment-error").get_text()
    assert soup.select_one("textarea[name=comment]").get_text().strip() == "留着这段话"
    assert not XtdComment.objects.exists()


def test_markdown_is_rendered_and_html_escaped(
    client, admin_client, post, django_capture_on_commit_callbacks
):
    text = "**粗体** <script>alert(1)</script> [链接](https://example.com)"
    send(client, post, comment=text)
    with django_capture_on_commit_callbacks(execute=True):
        approve(admin_client, XtdComment.objects.get())
    _, shown = section(client, post)
    body = shown.select_one(".comment-body")
    assert body.select_one("strong").get_text() == "粗体"
    assert not body.select("script")
    assert "<script>alert(1)</script>" in body.get_text()
    assert body.select_one("a")["rel"] == ["nofollow", "ugc"]


def test_a_post_with_comments_off_has_no_section_and_refuses_comments(client, post):
    post.allow_comments = False
    post.save_revision().publish()
    _, shown = section(client, post)
    assert shown is None
    response = send(client, post)
    assert response.status_code == 403
    assert not XtdComment.objects.exists()


def test_the_post_page_runs_few_queries_with_many_comments(client, post, settings):
    settings.PAGE_CACHE_SECONDS = 0  # every request renders the page
    settings.LISTING_CACHE_SECONDS = 3600  # as the site runs

    def count():
        with CaptureQueriesContext(connection) as captured:
            response = client.get(post.url)
        return len(captured), response.content.decode()

    client.get(post.url)  # the renders of the body are kept from here on
    few, _ = count()
    for n in range(50):
        XtdComment(
            content_type=ContentType.objects.get_for_model(type(post)),
            object_pk=str(post.pk),
            site_id=1,
            user_name=f"读者{n}",
            comment=f"第 {n} 条 $n={n}$",
            is_public=True,
        ).save()
    # One query for the comments, however many: at most 10, as every page.
    many, html = count()
    assert many <= 10
    assert many == few
    assert html.count('class="comment"') == 50


def test_the_admin_lists_by_state_and_approves_in_bulk(client, admin_client, post):
    send(client, post, comment="甲的评论")
    send(client, post, comment="乙的评论")
    pending = admin_client.get(MODERATE)
    soup = BeautifulSoup(pending.content, "html.parser")
    rows = soup.select("tbody tr")
    assert [r.select("td")[1].get_text(strip=True) for r in rows] == [
        "乙的评论",
        "甲的评论",
    ]
    assert all("共享内存" in r.get_text() for r in rows)
    assert "待审核（2）" in soup.select_one(".comments-states").get_text()
    # The sidebar is drawn from JSON in the page, its text \u-escaped.
    menu = admin_client.get("/admin/").content.decode()
    assert json.dumps("评论（2）") in menu

    ids = [c.pk for c in XtdComment.objects.all()]
    admin_client.post(f"{MODERATE}?state=pending", {"action": "approve", "ids": ids})

    assert XtdComment.objects.filter(is_public=True).count() == 2
    assert "没有待审核的评论" in admin_client.get(MODERATE).content.decode()


def test_approving_a_comment_leaves_the_replies_below_it_held(
    client, admin_client, post, django_capture_on_commit_callbacks
):
    send(client, post, comment="第一条")
    parent = XtdComment.objects.get()
    with django_capture_on_commit_callbacks(execute=True):
        approve(admin_client, parent)
    send(client, post, comment="待审的回复", reply_to=str(parent.pk))
    # Spam, then approve the parent again: its held reply stays held.
    admin_client.post(f"{MODERATE}?state=public", {"action": f"spam.{parent.pk}"})
    admin_client.post(f"{MODERATE}?state=spam", {"action": f"approve.{parent.pk}"})
    assert XtdComment.objects.get(comment="待审的回复").is_public is False
    assert "待审的回复" not in section(client, post)[1].get_text()


def test_an_old_form_asks_to_send_again_and_keeps_the_text(client, post):
    # A page kept in the cache for eight days: its hash is good, its time too old.
    then = int(time.time()) - 8 * 24 * 3600
    hashed = PostCommentForm(post).initial_security_hash(then)
    data = form_data(
        post, comment="写了很久的评论", timestamp=then, security_hash=hashed
    )
    response = client.post(reverse("comments-post"), data)
    assert response.status_code == 400
    soup = BeautifulSoup(response.content, "html.parser")
    assert "请再提交一次" in soup.select_one(".comment-message").get_text()
    assert soup.select_one("textarea").get_text().strip() == "写了很久的评论"
    assert int(soup.select_one("[name=timestamp]")["value"]) > then
    assert not XtdComment.objects.exists()


def test_a_moderator_without_the_permission_is_refused(client, django_user_model, post):
    user = django_user_model.objects.create_user("editor", password="x")
    user.user_permissions.add(Permission.objects.get(codename="access_admin"))
    client.force_login(user)
    response = client.get(MODERATE)
    # Wagtail answers a refusal in its admin with the dashboard and a message.
    assert (response.status_code, response.url) == (302, "/admin/")


def test_the_form_is_the_same_all_day_so_the_page_is_too(post, monkeypatch):
    # The post page, form included, is kept and compared (ETag) as one copy.
    def security_at(seconds):
        monkeypatch.setattr(comment_forms.time, "time", lambda: seconds)
        data = PostCommentForm(post).initial
        return data["timestamp"], data["security_hash"]

    morning, evening = 1_800_000_000 - 20_000, 1_800_000_000 - 1_000
    assert morning // 86_400 == evening // 86_400
    assert security_at(morning) == security_at(evening)
    assert security_at(evening + 86_400) != security_at(evening)
    # Still a valid form: its timestamp is at most a day old.
    assert evening - int(security_at(evening)[0]) < 86_400
