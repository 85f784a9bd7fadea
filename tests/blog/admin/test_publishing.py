"""Publishing: the significant-update switch, scheduled publishing, revisions."""

import datetime
import io

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone
from wagtail.models import PageLogEntry
from wagtail.rich_text import RichText

from blog.models import PostPage
from tests.blog.admin.editing import (
    add_url,
    edit_url,
    form_data,
    html_of,
    latest,
)
from tests.factories import PostPageFactory

# "重要更新": `updated` on a significant edit


@pytest.fixture
def old_post(series):
    post = PostPageFactory(
        parent=series,
        slug="shared-memory",
        date=datetime.date(2020, 9, 1),
        updated=datetime.date(2020, 9, 1),
    )
    post.save_revision().publish()
    return post


def test_significant_update_switch_sits_with_the_dates(admin_client, old_post):
    response = admin_client.get(edit_url(old_post))

    page = html_of(response)
    checkbox = page.find("input", attrs={"name": "significant_update"})
    assert checkbox["type"] == "checkbox"
    assert not checkbox.has_attr("checked")
    section = checkbox.find_parent("section")
    assert section.find(attrs={"data-panel-heading-text": True}).get_text() == (
        "日期与标签"
    )
    label = section.find("label", attrs={"for": "id_significant_update"})
    assert label.get_text(strip=True) == "重要更新"
    assert section.find("input", attrs={"name": "updated"})


def test_new_post_form_has_no_significant_update_switch(admin_client, series):
    response = admin_client.get(add_url(series))

    page = html_of(response)
    assert page.find("input", attrs={"name": "updated"})
    assert not page.find("input", attrs={"name": "significant_update"})
    assert not page.find("label", attrs={"for": "id_significant_update"})


def test_publishing_a_significant_update_sets_updated_to_today(admin_client, old_post):
    data = form_data([], "publish", significant_update="on")

    response = admin_client.post(edit_url(old_post), data)

    assert response.status_code == 302
    old_post.refresh_from_db()
    assert old_post.updated == timezone.localdate()
    assert old_post.date == datetime.date(2020, 9, 1)


def test_publishing_a_minor_edit_keeps_the_updated_date(admin_client, old_post):
    response = admin_client.post(
        edit_url(old_post), form_data([], "publish", updated="2020-10-01")
    )

    assert response.status_code == 302
    old_post.refresh_from_db()
    assert old_post.updated == datetime.date(2020, 10, 1)


def test_significant_update_saved_in_a_draft_is_published_with_it(
    admin_client, old_post
):
    saved = admin_client.post(
        edit_url(old_post), form_data([], significant_update="on")
    )

    old_post.refresh_from_db()
    assert saved.status_code == 302
    # The site still shows the old date; the draft carries today's.
    assert old_post.updated == datetime.date(2020, 9, 1)
    assert latest(old_post).updated == timezone.localdate()
    # The edit form shows the new date and an unticked switch.
    form = html_of(admin_client.get(edit_url(old_post)))
    assert form.find("input", attrs={"name": "updated"})["value"] == (
        timezone.localdate().isoformat()
    )
    assert not form.find("input", attrs={"name": "significant_update"}).has_attr(
        "checked"
    )

    old_post.latest_revision.publish()

    old_post.refresh_from_db()
    assert old_post.updated == timezone.localdate()


# Scheduled publishing and revisions


def test_scheduled_post_goes_live_when_publish_scheduled_runs(admin_client, series):
    go_live_at = timezone.localtime() + datetime.timedelta(days=1)
    data = form_data([], "publish", go_live_at=go_live_at.strftime("%Y-%m-%d %H:%M"))

    response = admin_client.post(add_url(series), data)

    post = PostPage.objects.get()
    revision = post.latest_revision
    assert response.status_code == 302
    assert not post.live
    assert post.status_string == "已计划"
    assert revision.approved_go_live_at is not None
    call_command("publish_scheduled", stdout=io.StringIO())
    post.refresh_from_db()
    assert not post.live  # Not due yet.

    # A day passes.
    past = timezone.now() - datetime.timedelta(minutes=1)
    revision.content["go_live_at"] = past.isoformat()
    revision.approved_go_live_at = past
    revision.save()
    call_command("publish_scheduled", stdout=io.StringIO())

    post.refresh_from_db()
    assert post.live
    assert post.live_revision == revision


@pytest.fixture
def post_with_two_revisions(series, admin_user):
    post = PostPageFactory(
        parent=series,
        title="第一版",
        date=datetime.date(2020, 9, 1),
        body__0__paragraph__value=RichText("<p>旧的正文 $x$。</p>"),
    )
    # As the editor saves them: each revision logged in the page's history.
    first = post.save_revision(user=admin_user, log_action=True)
    first.publish(user=admin_user)
    post.title = "第二版"
    second = post.save_revision(user=admin_user, log_action=True)
    return post, first, second


def test_revision_history_compare_and_revert_views_work(
    admin_client, post_with_two_revisions
):
    post, first, second = post_with_two_revisions
    history = admin_client.get(
        reverse("wagtailadmin_pages:revisions_index", args=(post.pk,)), follow=True
    )
    compare = admin_client.get(
        reverse(
            "wagtailadmin_pages:revisions_compare",
            args=(post.pk, first.pk, second.pk),
        )
    )
    revert = admin_client.get(
        reverse("wagtailadmin_pages:revisions_revert", args=(post.pk, first.pk))
    )
    view = admin_client.get(
        reverse("wagtailadmin_pages:revisions_view", args=(post.pk, first.pk))
    )

    assert history.status_code == 200
    assert (
        reverse("wagtailadmin_pages:revisions_revert", args=(post.pk, first.pk))
        in history.content.decode()
    )
    assert compare.status_code == 200
    assert "第一版" in compare.content.decode()
    assert "第二版" in compare.content.decode()
    assert revert.status_code == 200
    title = html_of(revert).find("input", attrs={"name": "title"})
    assert title["value"] == "第一版"
    assert view.status_code == 200
    assert 'class="katex"' in view.content.decode()


def test_restoring_an_old_revision_publishes_it_as_a_revert(
    admin_client, post_with_two_revisions
):
    post, first, _ = post_with_two_revisions
    revert_url = reverse(
        "wagtailadmin_pages:revisions_revert", args=(post.pk, first.pk)
    )

    # The restore form comes filled with the old revision; the editor publishes it.
    response = admin_client.post(
        revert_url, form_data([], "publish", title="第一版", slug=post.slug)
    )

    post.refresh_from_db()
    assert response.status_code == 302
    assert post.title == "第一版"
    assert post.revisions.count() == 3
    assert PageLogEntry.objects.filter(page=post, action="wagtail.revert").exists()
