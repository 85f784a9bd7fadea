"""Starting over after autosave: the first attempt is offered, images are reused."""

import io
import json

from django.urls import reverse
from PIL import Image as PILImage
from wagtail.images import get_image_model
from wagtail.test.utils.form_data import nested_form_data, streamfield

from blog.models import PostPage
from tests.blog.admin.editing import add_url, edit_url, form_data, html_of
from tests.factories import PostPageFactory

AUTOSAVE = {"HTTP_ACCEPT": "application/json"}


def autosave(client, url, **fields):
    """Post the form as Wagtail's autosave does: a draft save, asking for JSON."""
    data = {
        "title": "共享内存",
        "slug": "共享内存",
        "summary": "",
        "date": "2026-09-01",
        "updated": "2026-09-01",
        "tags": "",
        "body": streamfield([]),
        **fields,
    }
    return client.post(url, nested_form_data(data), **AUTOSAVE)


def messages_of(response):
    return [
        m.get_text(" ", strip=True) for m in html_of(response).select(".messages li")
    ]


def test_autosave_of_a_new_post_leaves_a_draft_the_add_form_offers(
    admin_client, series
):
    first = autosave(admin_client, add_url(series))
    assert first.json()["success"] is True
    draft = PostPage.objects.get(slug="共享内存")
    assert not draft.live

    again = admin_client.get(add_url(series))

    offered = [m for m in messages_of(again) if "共享内存" in m]
    assert offered and "未发布的草稿" in offered[0]
    links = {a["href"] for a in html_of(again).select(".messages a")}
    assert edit_url(draft) in links
    assert reverse("wagtailadmin_pages:delete", args=[draft.pk]) in links


def test_starting_over_with_the_same_title_names_the_draft_instead_of_the_slug(
    admin_client, series
):
    autosave(admin_client, add_url(series))

    response = admin_client.post(
        add_url(series),
        form_data([], title="共享内存", slug="共享内存"),
    )

    assert response.status_code == 200  # Re-shown, nothing created.
    assert PostPage.objects.filter(slug="共享内存").count() == 1
    page = html_of(response).get_text(" ", strip=True)
    assert "已有一篇未发布的草稿「共享内存」" in page
    assert "already in use" not in page
    draft = PostPage.objects.get(slug="共享内存")
    assert edit_url(draft) in {a["href"] for a in html_of(response).select("a")}


def test_autosave_refused_for_a_taken_slug_answers_200_with_the_reason(
    admin_client, series
):
    autosave(admin_client, add_url(series))

    response = autosave(admin_client, add_url(series), summary="第二次")

    # Wagtail's script reads the body; a 400 would be a console error per save.
    assert response.status_code == 200
    assert response.json()["success"] is False
    assert response.json()["error_code"] == "validation_error"
    assert PostPage.objects.filter(slug="共享内存").count() == 1


def test_a_published_page_with_the_slug_is_not_offered_as_a_draft(admin_client, series):
    post = PostPageFactory(parent=series, title="共享内存", slug="共享内存")
    post.save_revision().publish()

    form = admin_client.get(add_url(series))
    response = admin_client.post(
        add_url(series), form_data([], title="共享内存", slug="共享内存")
    )

    assert not [m for m in messages_of(form) if "草稿" in m]
    assert "未发布的草稿" not in html_of(response).get_text()
    assert html_of(response).select(".error-message, .w-field__errors")


def test_another_editors_draft_is_not_offered(admin_client, admin_user, series, editor):
    PostPageFactory(parent=series, title="别人的草稿", live=False, owner=editor)
    PostPageFactory(parent=series, title="自己的草稿", live=False, owner=admin_user)

    form = admin_client.get(add_url(series))

    offered = messages_of(form)
    assert [m for m in offered if "自己的草稿" in m]
    assert not [m for m in offered if "别人的草稿" in m]


# Images: the same file twice is one image


def png_bytes(color="red"):
    buffer = io.BytesIO()
    PILImage.new("RGB", (8, 8), color).save(buffer, "PNG")
    return buffer.getvalue()


def upload(name, content):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile(name, content, content_type="image/png")


def test_the_chooser_upload_of_a_known_file_chooses_the_existing_image(admin_client):
    url = reverse("wagtailimages_chooser:create")
    first = admin_client.post(
        url,
        {
            "image-chooser-upload-title": "图一",
            "image-chooser-upload-file": upload("a.png", png_bytes()),
        },
    )
    second = admin_client.post(
        url,
        {
            "image-chooser-upload-title": "图二",
            "image-chooser-upload-file": upload("b.png", png_bytes()),
        },
    )

    images = get_image_model().objects.all()
    assert images.count() == 1
    assert json.loads(first.content)["step"] == "chosen"
    # No "duplicate found" question: the existing image is chosen.
    assert json.loads(second.content)["step"] == "chosen"
    assert str(json.loads(second.content)["result"]["id"]) == str(images.get().pk)


def test_a_new_file_is_still_a_new_image(admin_client):
    url = reverse("wagtailimages_chooser:create")
    for name, color in (("a.png", "red"), ("b.png", "blue")):
        admin_client.post(
            url,
            {
                "image-chooser-upload-title": name,
                "image-chooser-upload-file": upload(name, png_bytes(color)),
            },
        )

    assert get_image_model().objects.count() == 2


def test_multi_upload_of_a_known_file_shows_the_existing_image(admin_client):
    url = reverse("wagtailimages:add_multiple")
    first = admin_client.post(url, {"files[]": upload("a.png", png_bytes())})
    second = admin_client.post(url, {"files[]": upload("a-again.png", png_bytes())})

    images = get_image_model().objects.all()
    assert images.count() == 1
    assert first.json()["success"] and second.json()["success"]
    assert second.json()["image_id"] == images.get().pk
    assert second.json()["duplicate"] is False
