"""The editor's side of the admin: the block menu, math and code while writing,
preview, tags, the significant-update switch, the dashboard, the default groups,
scheduled publishing and revisions."""

import datetime
import io
import json

import pytest
import wagtail_factories
from bs4 import BeautifulSoup
from django.contrib.auth.models import Group, Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from PIL import Image as PILImage
from wagtail.admin.widgets import AdminTagWidget
from wagtail.images import get_image_model
from wagtail.models import GroupPagePermission, Page, PageLogEntry, Revision
from wagtail.rich_text import RichText
from wagtail.test.utils.form_data import nested_form_data, rich_text, streamfield

from blog.blocks import RICH_TEXT_FEATURES, PostBodyBlock
from blog.models import PostPage
from tests.factories import PostPageFactory, SeriesPageFactory

BAD_TEX = r"\frac{a"
CURATED_LANGUAGES = [
    "CUDA",
    "C++",
    "C",
    "Python",
    "PTX",
    "Bash/Shell",
    "Rust",
    "Makefile",
    "SQL",
    "JSON",
    "YAML",
    "Text",
]


# Fixtures and helpers


@pytest.fixture
def series(home):
    return SeriesPageFactory(parent=home, title="CUDA", slug="cuda")


def user_in_group(django_user_model, group_name):
    user = django_user_model.objects.create_user(
        group_name.lower(), f"{group_name.lower()}@example.com", "password"
    )
    user.groups.add(Group.objects.get(name=group_name))
    return user


@pytest.fixture
def editor(django_user_model):
    """A member of Wagtail's default "Editors" group (not staff, not superuser)."""
    return user_in_group(django_user_model, "Editors")


@pytest.fixture
def moderator(django_user_model):
    """A member of Wagtail's default "Moderators" group."""
    return user_in_group(django_user_model, "Moderators")


@pytest.fixture
def as_editor(client, editor):
    client.force_login(editor)
    return client


@pytest.fixture
def as_moderator(client, moderator):
    client.force_login(moderator)
    return client


def add_url(parent):
    return reverse("wagtailadmin_pages:add", args=("blog", "postpage", parent.pk))


def edit_url(page):
    return reverse("wagtailadmin_pages:edit", args=(page.pk,))


def form_data(body, action=None, **fields):
    """Return a post form's data: this body, and `action` ("publish", "submit")."""
    data = {
        "title": "共享内存",
        "slug": "shared-memory",
        "summary": "Bank conflict 与 padding。",
        "date": "2020-09-01",
        "updated": "2020-09-01",
        "tags": "cuda",
        "body": streamfield(body),
        **fields,
    }
    if action:
        data[f"action-{action}"] = f"action-{action}"
    return nested_form_data(data)


def paragraph(html):
    return rich_text(html, features=RICH_TEXT_FEATURES)


def code(source, language="cuda"):
    return {
        "language": language,
        "filename": "",
        "code": source,
        "highlight_lines": "",
        "line_numbers": "on",
    }


def html_of(response):
    return BeautifulSoup(response.content.decode(), "html.parser")


def body_definition(response):
    """Return the body StreamBlock's definition the page editor builds its UI from.

    It is the telepath-packed JSON of the block, as Wagtail's JS receives it.
    """
    field = html_of(response).find(attrs={"data-w-block-data-value": True})
    return json.loads(field["data-w-block-data-value"])


def stream_errors(response):
    """Return the errors the body StreamField is re-shown with."""
    field = html_of(response).find(attrs={"data-w-block-arguments-value": True})
    return json.loads(field["data-w-block-arguments-value"])[1]


def assert_refused(response):
    """Assert Wagtail sent the user back to the dashboard with its refusal."""
    assert response.redirect_chain[-1] == (reverse("wagtailadmin_home"), 302)
    assert "对不起， 你没有权限访问。" in response.content.decode()


def latest(page):
    """Return the page as its latest revision has it."""
    return Page.objects.get(pk=page.pk).specific.get_latest_revision_as_object()


# Block groups and the code language list


def test_body_blocks_are_grouped_text_code_and_math_media():
    groups = {
        name: block.meta.group for name, block in PostBodyBlock().child_blocks.items()
    }

    assert groups == {
        "heading": "文本",
        "paragraph": "文本",
        "markdown": "文本",
        "table": "文本",
        "callout": "文本",
        "quote": "文本",
        "code": "代码与公式",
        "math": "代码与公式",
        "image": "媒体",
        "embed": "媒体",
        "html_figure": "媒体",
    }


def test_add_post_block_menu_shows_the_groups(admin_client, series):
    response = admin_client.get(add_url(series))

    _, grouped, _, _ = body_definition(response)["_args"]
    menu = [
        (group, [block["_args"][0] for block in blocks]) for group, blocks in grouped
    ]
    assert menu == [
        ("文本", ["heading", "paragraph", "markdown", "table", "callout", "quote"]),
        ("代码与公式", ["code", "math"]),
        ("媒体", ["image", "embed", "html_figure"]),
    ]


def test_code_block_language_list_starts_with_the_curated_languages(
    admin_client, series
):
    response = admin_client.get(add_url(series))

    _, grouped, defaults, _ = body_definition(response)["_args"]
    blocks = {block["_args"][0]: block for _, group in grouped for block in group}
    fields = {field["_args"][0]: field for field in blocks["code"]["_args"][1]}
    select = fields["language"]["_args"][1]["_args"][0]  # The widget's HTML.
    options = BeautifulSoup(select, "html.parser").find_all("option")
    labels = [option.get_text() for option in options]
    assert labels[: len(CURATED_LANGUAGES)] == CURATED_LANGUAGES
    assert options[0]["value"] == "cuda"
    assert len(labels) > len(CURATED_LANGUAGES)  # The rest follow.
    # A new code block starts as CUDA.
    assert defaults["code"]["language"] == ["cuda"]


# KaTeX's message on save


@pytest.mark.parametrize(
    ("block", "field"),
    [
        (("heading", {"text": f"分块 ${BAD_TEX}$", "level": "h2"}), None),
        (("paragraph", paragraph(f"<p>设 ${BAD_TEX}$。</p>")), None),
        (
            (
                "table",
                json.dumps(
                    {
                        "data": [["格式", "最大值"], ["FP8", f"${BAD_TEX}$"]],
                        "first_row_is_table_header": True,
                        "first_col_is_header": False,
                        "table_caption": "",
                        "table_header_choice": "row",
                    }
                ),
            ),
            None,
        ),
        (
            (
                "callout",
                {
                    "kind": "note",
                    "title": f"注意 ${BAD_TEX}$",
                    "body": paragraph("<p>同步。</p>"),
                },
            ),
            "title",
        ),
        (
            (
                "html_figure",
                {"html": "<svg></svg>", "height": "120", "caption": f"${BAD_TEX}$"},
            ),
            "caption",
        ),
    ],
    ids=["heading", "paragraph", "table", "callout-title", "figure-caption"],
)
def test_bad_inline_math_is_reported_where_it_was_written(
    admin_client, series, block, field
):
    body = [("paragraph", paragraph("<p>前言。</p>")), block]

    response = admin_client.post(add_url(series), form_data(body, "publish"))

    assert response.status_code == 200
    assert not PostPage.objects.exists()
    errors = stream_errors(response)["blockErrors"]
    assert "0" not in errors
    if field is None:
        (message,) = errors["1"]["messages"]
    else:
        (message,) = errors["1"]["blockErrors"][field]["messages"]
    assert message.startswith("KaTeX parse error")
    assert "KaTeX parse error" in response.content.decode()


def test_bad_inline_math_in_an_image_caption_is_reported_on_the_caption(
    admin_client, series
):
    image = wagtail_factories.ImageFactory(title="smem")
    body = [("image", {"image": image.pk, "alt": "", "caption": f"图 1 ${BAD_TEX}$"})]

    response = admin_client.post(add_url(series), form_data(body, "publish"))

    assert not PostPage.objects.exists()
    errors = stream_errors(response)["blockErrors"]
    (message,) = errors["0"]["blockErrors"]["caption"]["messages"]
    assert message.startswith("KaTeX parse error")


def test_bad_formula_in_an_existing_post_is_refused_and_the_post_kept(
    admin_client, series
):
    post = PostPageFactory(
        parent=series,
        title="Softmax",
        date=datetime.date(2020, 9, 1),
        body__0__math__tex=r"e^{x_i}",
    )
    body = [("math", {"tex": BAD_TEX, "label": "1"})]

    response = admin_client.post(
        edit_url(post), form_data(body, "publish", title="Softmax 改")
    )

    assert response.status_code == 200
    (message,) = stream_errors(response)["blockErrors"]["0"]["blockErrors"]["tex"][
        "messages"
    ]
    assert message.startswith("KaTeX parse error")
    assert "KaTeX parse error" in response.content.decode()
    post.refresh_from_db()
    assert post.title == "Softmax"
    assert [(child.block_type, child.value["tex"]) for child in post.body] == [
        ("math", r"e^{x_i}")
    ]
    assert not post.revisions.exists()


def test_editing_a_post_with_code_and_math_publishes_a_new_revision(
    admin_client, series
):
    post = PostPageFactory(parent=series, date=datetime.date(2020, 9, 1))
    post.save_revision().publish()
    body = [
        ("math", {"tex": r"\frac{a}{b}", "label": "1"}),
        ("code", code("__global__ void k() {}")),
    ]

    response = admin_client.post(edit_url(post), form_data(body, "publish"))

    assert response.status_code == 302
    post.refresh_from_db()
    assert post.revisions.count() == 2
    assert post.live_revision == post.latest_revision
    assert [child.block_type for child in post.body] == ["math", "code"]
    assert post.body[1].value["code"] == "__global__ void k() {}"


# Live preview


def assert_rendered_preview(html):
    assert 'class="katex"' in html  # Inline math, typeset on the server.
    assert 'class="katex-display"' in html  # Display math.
    assert '<span class="kr">__global__</span>' in html  # Pygments.
    assert "/static/katex/katex.min.css" in html


PREVIEW_BODY = [
    ("paragraph", paragraph("<p>设 $n = 2^k$。</p>")),
    ("math", {"tex": r"\sum_i x_i", "label": ""}),
    ("code", code("__global__ void k() {}")),
]


def test_preview_of_a_new_post_shows_rendered_math_and_code(admin_client, series):
    url = reverse(
        "wagtailadmin_pages:preview_on_add", args=("blog", "postpage", series.pk)
    )

    posted = admin_client.post(url, form_data(PREVIEW_BODY))
    shown = admin_client.get(url, {"in_preview_panel": "true"})

    assert posted.json() == {"is_valid": True, "is_available": True}
    assert shown.status_code == 200
    assert_rendered_preview(shown.content.decode())
    assert not PostPage.objects.exists()


def test_preview_of_an_edit_shows_the_unsaved_changes_rendered(admin_client, series):
    post = PostPageFactory(parent=series, date=datetime.date(2020, 9, 1))
    url = reverse("wagtailadmin_pages:preview_on_edit", args=(post.pk,))

    posted = admin_client.post(url, form_data(PREVIEW_BODY, title="预览中的标题"))
    shown = admin_client.get(url, {"in_preview_panel": "true"})

    html = shown.content.decode()
    assert posted.json()["is_valid"] is True
    assert "预览中的标题" in html
    assert_rendered_preview(html)
    post.refresh_from_db()
    assert post.title != "预览中的标题"


# Tags


def test_tag_field_autocompletes_from_the_admin_endpoint(admin_client, series):
    response = admin_client.get(add_url(series))

    form_class = PostPage.get_edit_handler().get_form_class()
    assert isinstance(form_class.base_fields["tags"].widget, AdminTagWidget)
    field = html_of(response).find("input", attrs={"name": "tags"})
    assert field["data-controller"] == "w-tag"
    assert field["data-w-tag-url-value"] == reverse("wagtailadmin_tag_autocomplete")


def test_tag_autocomplete_offers_existing_tags_by_prefix(as_editor, series):
    PostPageFactory(parent=series, tags=["cuda", "cutlass", "量化"])
    PostPageFactory(parent=series, tags=["python", "cuda"])
    url = reverse("wagtailadmin_tag_autocomplete")

    assert as_editor.get(url, {"term": "cu"}).json() == ["cuda", "cutlass"]
    assert as_editor.get(url, {"term": "CU"}).json() == ["cuda", "cutlass"]
    assert as_editor.get(url, {"term": "量"}).json() == ["量化"]
    assert as_editor.get(url, {"term": "rust"}).json() == []


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


# The dashboard's writing panel


def make_draft(series, title, minutes_ago):
    """Create an unpublished post whose latest revision is `minutes_ago` old."""
    post = PostPageFactory(parent=series, title=title, live=False)
    revision = post.save_revision()
    when = timezone.now() - datetime.timedelta(minutes=minutes_ago)
    Revision.objects.filter(pk=revision.pk).update(created_at=when)
    Page.objects.filter(pk=post.pk).update(latest_revision_created_at=when)
    return post


def make_live(series, title, updated):
    return PostPageFactory(
        parent=series, title=title, date=datetime.date(2020, 1, 1), updated=updated
    )


def writing_panel(response):
    return html_of(response).find(id="writing-section")


def rows(panel, list_id):
    """Return (title, link, status) for each row of one of the panel's lists."""
    table = panel.find("table", attrs={"aria-labelledby": list_id})
    if table is None:
        return []
    result = []
    for row in table.tbody.find_all("tr"):
        link = row.select_one("td.title a")
        status = row.select_one(".w-status")
        status.select_one(".w-sr-only").extract()
        result.append((link.get_text(), link["href"], status.get_text(strip=True)))
    return result


def test_dashboard_lists_drafts_and_recently_updated_posts(as_editor, series):
    older = make_draft(series, "旧草稿", minutes_ago=60)
    newer = make_draft(series, "新草稿", minutes_ago=5)
    changed = make_live(series, "已发布，有修改", datetime.date(2020, 3, 1))
    changed.save_revision()  # A draft revision over the live page.
    Page.objects.filter(pk=changed.pk).update(
        latest_revision_created_at=timezone.now() - datetime.timedelta(minutes=30)
    )
    first = make_live(series, "三月更新", datetime.date(2020, 3, 2))
    second = make_live(series, "二月更新", datetime.date(2020, 2, 1))

    response = as_editor.get(reverse("wagtailadmin_home"))

    panel = writing_panel(response)
    assert response.status_code == 200
    assert panel.find(attrs={"data-panel-heading-text": True}).get_text() == "写作"
    assert rows(panel, "writing-drafts") == [
        ("新草稿", edit_url(newer), "草稿"),
        ("已发布，有修改", edit_url(changed), "发布+草稿"),
        ("旧草稿", edit_url(older), "草稿"),
    ]
    assert rows(panel, "writing-updated") == [
        ("三月更新", edit_url(first), "在用"),
        ("已发布，有修改", edit_url(changed), "发布+草稿"),
        ("二月更新", edit_url(second), "在用"),
    ]


def test_dashboard_writing_panel_is_empty_on_a_new_site(as_editor, home):
    panel = writing_panel(as_editor.get(reverse("wagtailadmin_home")))

    assert "没有草稿。" in panel.get_text()
    assert "还没有已发布的文章。" in panel.get_text()


def dashboard_queries(client):
    with CaptureQueriesContext(connection) as queries:
        response = client.get(reverse("wagtailadmin_home"))
    assert response.status_code == 200
    return len(queries), response


def test_dashboard_queries_do_not_grow_with_the_number_of_posts(as_editor, series):
    for n in range(2):
        make_draft(series, f"草稿 {n}", minutes_ago=n)
        make_live(series, f"文章 {n}", datetime.date(2020, 2, n + 1))
    dashboard_queries(as_editor)  # warm caches: content types, site root paths
    few, _ = dashboard_queries(as_editor)
    for n in range(2, 20):
        make_draft(series, f"草稿 {n}", minutes_ago=n)
        make_live(series, f"文章 {n}", datetime.date(2020, 2, n + 1))

    many, response = dashboard_queries(as_editor)

    # The panel costs the same queries however many posts there are: drafts,
    # live posts, and for each list one prefetch of workflow states (for the
    # status tag; the schedule flag is annotated), plus the live posts' tags.
    # It shows at most 8 of each.
    assert many == few
    panel = writing_panel(response)
    assert len(rows(panel, "writing-drafts")) == 8
    assert len(rows(panel, "writing-updated")) == 8


def test_writing_panel_is_hidden_from_users_who_cannot_edit_pages(
    client, django_user_model, series
):
    make_draft(series, "草稿", minutes_ago=1)
    group = Group.objects.create(name="只能登录后台")
    group.permissions.add(Permission.objects.get(codename="access_admin"))
    user = django_user_model.objects.create_user("reader", "r@example.com", "pw")
    user.groups.add(group)
    client.force_login(user)

    response = client.get(reverse("wagtailadmin_home"))

    assert response.status_code == 200
    assert writing_panel(response) is None


# Editors and Moderators


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
    assert post.current_workflow_task.name == "Moderators approval"
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
