"""Wagtail's default groups: Editors write and submit, Moderators publish."""

import datetime
import io

import pytest
from django.contrib.auth.models import Group
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from PIL import Image as PILImage
from wagtail.images import get_image_model
from wagtail.models import GroupPagePermission

from blog.models import PostPage
from tests.blog.admin.editing import (
    add_url,
    assert_refused,
    edit_url,
    form_data,
    user_in_group,
)
from tests.factories import PostPageFactory


def page_permissions(group_name):
    return {
        (permission.page.depth, permission.permission.codename)
        for permission in GroupPagePermission.objects.filter(group__name=group_name)
    }


def test_default_groups_hold_their_rights_on_the_root_above_our_site(home):
    # The site root migration replaced Wagtail's welcome page, not the root
    # page these rights are attached to: they reach every page of the blog.
    assert page_permissions("Editors") == {(1, "add_page"), (1, "change_page")}
    assert page_permissions("Moderators") == {
        (1, "add_page"),
        (1, "change_page"),
        (1, "lock_page"),
        (1, "publish_page"),
        (1, "unlock_page"),
    }
    assert home.get_parent().depth == 1


def test_editor_writes_a_draft_and_submits_it_but_cannot_publish(
    as_editor, editor, series
):
    editor_form = as_editor.get(add_url(series))
    body = [("math", {"tex": r"\frac{a}{b}", "label": ""})]

    # "Publish" from an editor only saves a draft.
    created = as_editor.post(add_url(series), form_data(body, "publish"))
    post = PostPage.objects.get()
    submitted = as_editor.post(edit_url(post), form_data(body, "submit"))

    post.refresh_from_db()
    assert editor_form.status_code == 200
    assert 'name="action-publish"' not in editor_form.content.decode()
    assert 'name="action-submit"' in editor_form.content.decode()
    assert created.status_code == 302
    assert submitted.status_code == 302
    assert post.owner == editor
    assert not post.live
    assert post.workflow_in_progress
    assert post.current_workflow_task.name == "审核员审批"
    edit_form = as_editor.get(edit_url(post)).content.decode()
    assert 'name="action-publish"' not in edit_form


def test_editor_cannot_publish_unpublish_or_delete_live_posts(as_editor, series):
    post = PostPageFactory(parent=series, date=datetime.date(2020, 9, 1))
    post.save_revision().publish()

    published = as_editor.post(
        edit_url(post), form_data([], "publish", title="编辑改的标题")
    )
    unpublish = as_editor.post(
        reverse("wagtailadmin_pages:unpublish", args=(post.pk,)), follow=True
    )
    delete = as_editor.post(
        reverse("wagtailadmin_pages:delete", args=(post.pk,)), follow=True
    )

    post.refresh_from_db()
    assert published.status_code == 302
    assert post.live
    assert post.title != "编辑改的标题"  # Saved as a draft only.
    assert post.has_unpublished_changes
    assert_refused(unpublish)
    assert_refused(delete)


def test_editor_can_upload_and_choose_images(as_editor):
    buffer = io.BytesIO()
    PILImage.new("RGB", (8, 8), "red").save(buffer, "PNG")
    upload = SimpleUploadedFile("smem.png", buffer.getvalue(), "image/png")

    uploaded = as_editor.post(
        reverse("wagtailimages:add"), {"title": "共享内存", "file": upload}
    )
    chooser = as_editor.get(reverse("wagtailimages_chooser:choose"))

    assert uploaded.status_code == 302
    assert get_image_model().objects.get().title == "共享内存"
    assert chooser.status_code == 200
    assert "共享内存" in chooser.json()["html"]


def test_moderator_approves_a_submitted_post_then_unpublishes_it(
    client, editor, moderator, series
):
    client.force_login(editor)
    client.post(add_url(series), form_data([]))
    post = PostPage.objects.get()
    client.post(edit_url(post), form_data([], "submit"))
    post.refresh_from_db()
    task_state = post.current_workflow_state.current_task_state
    client.force_login(moderator)

    approved = client.post(
        reverse(
            "wagtailadmin_pages:workflow_action",
            args=(post.pk, "approve", task_state.pk),
        ),
        {"comment": ""},
    )
    post.refresh_from_db()
    was_live = post.live
    unpublished = client.post(reverse("wagtailadmin_pages:unpublish", args=(post.pk,)))

    post.refresh_from_db()
    assert approved.status_code == 302
    assert was_live
    assert unpublished.status_code == 302
    assert not post.live


def test_moderator_publishes_an_edit_directly(as_moderator, series):
    post = PostPageFactory(parent=series, date=datetime.date(2020, 9, 1))
    post.save_revision().publish()

    response = as_moderator.post(
        edit_url(post), form_data([], "publish", title="审核者改的标题")
    )

    post.refresh_from_db()
    assert response.status_code == 302
    assert post.title == "审核者改的标题"
    assert not post.has_unpublished_changes


def admin_only_urls():
    editors = Group.objects.get(name="Editors")
    return [
        reverse("wagtailusers_users:index"),
        reverse("wagtailusers_users:add"),
        reverse("wagtailusers_groups:index"),
        reverse("wagtailusers_groups:edit", args=(editors.pk,)),
        reverse("wagtailsites:index"),
        reverse("wagtailadmin_workflows:index"),
        reverse("wagtailadmin_collections:index"),
        reverse("wagtailredirects:index"),
    ]


@pytest.mark.parametrize("group_name", ["Editors", "Moderators"])
def test_editors_and_moderators_cannot_manage_users_groups_or_settings(
    client, django_user_model, home, group_name
):
    client.force_login(user_in_group(django_user_model, group_name))

    dashboard = client.get(reverse("wagtailadmin_home"))
    refused = [client.get(url, follow=True) for url in admin_only_urls()]

    assert dashboard.status_code == 200
    for response in refused:
        assert_refused(response)
