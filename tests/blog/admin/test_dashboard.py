"""The dashboard's writing panel: drafts, schedules, updates, and what to fix."""

import datetime
import json
import uuid
from io import StringIO

import pytest
from django.contrib.auth.models import Group, Permission
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult
from wagtail.models import GroupPagePermission, Page, Revision

from blog.models import BodyCheck, PostPage
from tests.blog.admin.editing import edit_url, html_of
from tests.factories import PostPageFactory, SeriesPageFactory
from tests.queue import run_worker

# The whole dashboard, as measured: Wagtail's own (session, user, permissions,
# site summary, its panels) about twenty, the writing panel thirteen at most
# (see test_dashboard_queries_do_not_grow_with_the_number_of_posts); a problem
# list is counted only when it is full.
QUERY_LIMIT = 34


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


def block(block_type, value):
    return {"type": block_type, "value": value, "id": str(uuid.uuid4())}


def post_with_body(series, title, blocks, **kwargs):
    """Create a live post with exactly these raw blocks (ids included)."""
    post = PostPageFactory(parent=series, title=title, **kwargs)
    post.body = json.dumps(blocks)
    post.save_revision().publish()
    return PostPage.objects.get(pk=post.pk)


def finding_rows(panel, list_id):
    """Return (place, link, text, reason) for each row of a problem list."""
    table = panel.find("table", attrs={"aria-labelledby": list_id})
    if table is None:
        return []
    result = []
    for row in table.tbody.find_all("tr"):
        cells = row.find_all("td")
        link = cells[0].a
        reason = cells[2].get_text(strip=True) if len(cells) > 2 else ""
        result.append(
            (link.get_text(), link["href"], cells[1].get_text(strip=True), reason)
        )
    return result


def block_url(post, block_id):
    return f"{edit_url(post)}#block-{block_id}-section"


def test_a_scheduled_post_is_listed_with_its_time_and_not_as_a_draft(as_editor, series):
    post = PostPageFactory(parent=series, title="下周发布", live=False)
    post.go_live_at = timezone.now() + datetime.timedelta(days=7)
    post.save_revision().publish()
    make_draft(series, "还在写", minutes_ago=1)

    panel = writing_panel(as_editor.get(reverse("wagtailadmin_home")))

    assert rows(panel, "writing-scheduled") == [("下周发布", edit_url(post), "已计划")]
    assert [title for title, _, _ in rows(panel, "writing-drafts")] == ["还在写"]
    when = timezone.localtime(post.go_live_at)
    table = panel.find("table", attrs={"aria-labelledby": "writing-scheduled"})
    assert (
        table.time.get_text() == f"{when:%Y}年{when.month}月{when.day}日 {when:%H:%M}"
    )


def test_links_to_deleted_unpublished_and_moved_pages_are_listed_by_block(
    as_editor, series
):
    deleted = PostPageFactory(parent=series, title="删掉的", slug="deleted")
    hidden = PostPageFactory(parent=series, title="撤下的", slug="hidden")
    moved = PostPageFactory(parent=series, title="搬走的", slug="moved")
    fine = PostPageFactory(parent=series, title="好好的", slug="fine")
    rich = block(
        "paragraph",
        f'<p>见 <a linktype="page" id="{deleted.pk}">共享内存</a>、'
        f'<a linktype="page" id="{fine.pk}">好链接</a>、'
        '<a href="/cuda/nowhere/">没有的页</a>、<a href="https://example.com/">外站</a>。</p>',
    )
    markdown = block(
        "markdown",
        f"[归约]({hidden.url}) 与 [扫描]({moved.url}) 与 [好的]({fine.url})，"
        "[外站](https://example.com/) 与 [标签](/tags/cuda/)。",
    )
    post = post_with_body(series, "链接很多的文章", [rich, markdown])
    deleted.delete()
    hidden.unpublish()
    moved.slug = "moved-away"
    moved.save_revision().publish()

    panel = writing_panel(as_editor.get(reverse("wagtailadmin_home")))

    assert panel.find(id="writing-links").get_text() == "失效的内部链接（4）"
    assert sorted(finding_rows(panel, "writing-links")) == sorted(
        [
            (
                "链接很多的文章 · 段落",
                block_url(post, rich["id"]),
                "共享内存",
                "页面已删除",
            ),
            (
                "链接很多的文章 · 段落",
                block_url(post, rich["id"]),
                "没有的页",
                "没有这个页面",
            ),
            (
                "链接很多的文章 · Markdown",
                block_url(post, markdown["id"]),
                "归约",
                "页面未发布",
            ),
            (
                "链接很多的文章 · Markdown",
                block_url(post, markdown["id"]),
                "扫描",
                "页面已移动",
            ),
        ]
    )


def test_a_link_fixed_in_a_draft_leaves_the_list(as_editor, series):
    gone = PostPageFactory(parent=series, title="删掉的", slug="gone")
    paragraph = block("paragraph", f'<p><a linktype="page" id="{gone.pk}">旧文</a></p>')
    post = post_with_body(series, "有坏链接", [paragraph])
    gone.delete()
    assert finding_rows(
        writing_panel(as_editor.get(reverse("wagtailadmin_home"))), "writing-links"
    )

    post.body = json.dumps([{**paragraph, "value": "<p>旧文已删。</p>"}])
    post.save_revision()  # a draft: the editor opens it, so it is what counts

    panel = writing_panel(as_editor.get(reverse("wagtailadmin_home")))
    assert finding_rows(panel, "writing-links") == []
    assert "没有失效的内部链接。" in panel.get_text()


BAD_POST = """---
title: 导入的坏公式
---

正文里有 $\\frac{1}{2$ 这样一个行内公式。

$$
f(x) &= (x + 1)^2
$$

$$
E = mc^2
$$
"""


def test_bad_formulas_of_an_imported_post_are_listed_by_block(
    as_editor, home, tmp_path
):
    (tmp_path / "bad-math.md").write_text(BAD_POST, encoding="utf-8")
    call_command("import_markdown", str(tmp_path), stdout=StringIO())
    post = PostPage.objects.get(title="导入的坏公式")
    body = post.get_latest_revision_as_object().body
    (paragraph,) = [b.id for b in body if b.block_type == "paragraph"]
    (bad_math,) = [
        b.id for b in body if b.block_type == "math" and "&" in b.value["tex"]
    ]

    panel = writing_panel(as_editor.get(reverse("wagtailadmin_home")))

    assert panel.find(id="writing-formulas").get_text() == "有错误的公式（2）"
    assert sorted(finding_rows(panel, "writing-formulas")) == sorted(
        [
            (
                "导入的坏公式 · 段落",
                block_url(post, paragraph),
                "\\frac{1}{2",
                "",
            ),
            (
                "导入的坏公式 · 公式",
                block_url(post, bad_math),
                "f(x) &= (x + 1)^2",
                "",
            ),
        ]
    )
    # KaTeX's message is on the formula.
    code = panel.select_one("table[aria-labelledby=writing-formulas] code")
    assert code["title"].startswith("KaTeX parse error")


def test_an_import_queues_one_check_of_each_page_for_the_workers(
    as_editor, home, tmp_path, database_queue
):
    # An import saves each page three times (a revision, the page, the
    # publish); the workers check each body once, the newest.
    (tmp_path / "bad-math.md").write_text(BAD_POST, encoding="utf-8")
    (tmp_path / "fine.md").write_text("# 好公式\n\n$$E = mc^2$$\n", encoding="utf-8")
    call_command("import_markdown", str(tmp_path), stdout=StringIO())
    imported = dict(
        PostPage.objects.filter(title__in=["导入的坏公式", "好公式"]).values_list(
            "pk", "latest_revision_id"
        )
    )
    checks = DBTaskResult.objects.filter(task_path="blog.writing.check_task")
    assert sorted(tuple(c.args_kwargs["args"]) for c in checks) == sorted(
        imported.items()
    )

    run_worker()

    panel = writing_panel(as_editor.get(reverse("wagtailadmin_home")))
    assert panel.find(id="writing-unchecked") is None
    assert panel.find(id="writing-formulas").get_text() == "有错误的公式（2）"


def test_pages_saved_before_the_checks_are_counted_until_checked(as_editor, series):
    post = PostPageFactory(parent=series, title="老文章")
    BodyCheck.objects.filter(pk=post.pk).delete()

    panel = writing_panel(as_editor.get(reverse("wagtailadmin_home")))
    assert "另有 1 个页面" in panel.find(id="writing-unchecked").get_text()

    call_command("check_bodies", stdout=StringIO())

    panel = writing_panel(as_editor.get(reverse("wagtailadmin_home")))
    assert panel.find(id="writing-unchecked") is None


def make_site(series, count, start=0):
    """Add ``count`` of each: draft, scheduled post, live post with a broken link
    and a bad formula."""
    for n in range(start, start + count):
        make_draft(series, f"草稿 {n}", minutes_ago=n)
        scheduled = PostPageFactory(parent=series, title=f"定时 {n}", live=False)
        scheduled.go_live_at = timezone.now() + datetime.timedelta(days=n + 1)
        scheduled.save_revision().publish()
        gone = PostPageFactory(parent=series, title=f"将删除 {n}")
        post_with_body(
            series,
            f"文章 {n}",
            [
                block(
                    "paragraph",
                    f'<p><a linktype="page" id="{gone.pk}">旧文 {n}</a></p>',
                ),
                block("math", {"tex": "\\frac{a", "label": ""}),
            ],
            date=datetime.date(2020, 1, 1),
            updated=datetime.date(2020, 2, 1) + datetime.timedelta(days=n),
        )
        gone.delete()


@pytest.mark.parametrize("posts", [5, 50])
def test_dashboard_queries_do_not_grow_with_the_number_of_posts(
    as_editor, series, posts, django_assert_max_num_queries
):
    make_site(series, posts)
    as_editor.get(reverse("wagtailadmin_home"))  # warm caches: content types, site

    # Wagtail's own dashboard (session, user, its panels) and the writing
    # panel's: drafts, scheduled and recently updated posts, each with one
    # prefetch of workflow states, the recent posts' tags; the first broken
    # links and their count, the first bad formulas and their count, and the
    # pages not yet checked. Whatever the number of posts.
    with django_assert_max_num_queries(QUERY_LIMIT):
        response = as_editor.get(reverse("wagtailadmin_home"))

    panel = writing_panel(response)
    shown = min(posts, 8)
    assert len(rows(panel, "writing-drafts")) == shown
    assert len(rows(panel, "writing-scheduled")) == shown
    assert len(rows(panel, "writing-updated")) == shown
    assert len(finding_rows(panel, "writing-links")) == shown
    assert len(finding_rows(panel, "writing-formulas")) == shown
    assert panel.find(id="writing-formulas").get_text() == f"有错误的公式（{posts}）"


@pytest.fixture
def notes(home):
    return SeriesPageFactory(parent=home, title="笔记", slug="notes")


@pytest.fixture
def notes_editor(django_user_model, notes):
    """An editor who may add and edit pages under /notes/ only."""
    group = Group.objects.create(name="笔记编辑")
    group.permissions.add(Permission.objects.get(codename="access_admin"))
    for codename in ("add_page", "change_page"):
        GroupPagePermission.objects.create(
            group=group,
            page=notes,
            permission=Permission.objects.get(codename=codename),
        )
    user = django_user_model.objects.create_user("notes", "n@example.com", "pw")
    user.groups.add(group)
    return user


def make_section(section, name):
    """Give ``section`` a draft, a live post with an unpublished revision, a
    scheduled post, a live post, a broken link and a bad formula, and a page
    saved before bodies were checked; each titled after ``name``."""
    make_draft(section, f"{name}的草稿", minutes_ago=5)
    changed = make_live(section, f"{name}的文章", datetime.date(2020, 3, 1))
    changed.title = f"{name}未发布的修改"
    changed.save_revision()
    scheduled = PostPageFactory(parent=section, title=f"{name}的定时文章", live=False)
    scheduled.go_live_at = timezone.now() + datetime.timedelta(days=1)
    scheduled.save_revision().publish()
    gone = PostPageFactory(parent=section, title=f"{name}将删除")
    post_with_body(
        section,
        f"{name}有问题的文章",
        [
            block(
                "paragraph",
                f'<p><a linktype="page" id="{gone.pk}">{name}坏链接</a></p>',
            ),
            block("math", {"tex": f"\\frac{{{name}", "label": ""}),
        ],
    )
    gone.delete()
    old = PostPageFactory(parent=section, title=f"{name}的老文章")
    BodyCheck.objects.filter(pk=old.pk).delete()


def test_an_editor_sees_only_the_pages_they_may_edit(
    client, notes_editor, notes, series
):
    make_section(notes, "笔记")
    make_section(series, "CUDA")
    client.force_login(notes_editor)

    response = client.get(reverse("wagtailadmin_home"))

    panel = writing_panel(response)
    # The revision over the live post is the latest edit.
    assert [title for title, _, _ in rows(panel, "writing-drafts")] == [
        "笔记未发布的修改",
        "笔记的草稿",
    ]
    assert [title for title, _, _ in rows(panel, "writing-scheduled")] == [
        "笔记的定时文章"
    ]
    assert "笔记未发布的修改" in [t for t, _, _ in rows(panel, "writing-updated")]
    assert [text for _, _, text, _ in finding_rows(panel, "writing-links")] == [
        "笔记坏链接"
    ]
    assert panel.find(id="writing-links").get_text() == "失效的内部链接（1）"
    assert [text for _, _, text, _ in finding_rows(panel, "writing-formulas")] == [
        "\\frac{笔记"
    ]
    assert panel.find(id="writing-formulas").get_text() == "有错误的公式（1）"
    assert "另有 1 个页面" in panel.find(id="writing-unchecked").get_text()
    assert "CUDA" not in response.content.decode()


def test_a_superuser_sees_the_pages_of_every_section(admin_client, notes, series):
    make_section(notes, "笔记")
    make_section(series, "CUDA")

    panel = writing_panel(admin_client.get(reverse("wagtailadmin_home")))

    drafts = {title for title, _, _ in rows(panel, "writing-drafts")}
    assert drafts == {
        "笔记的草稿",
        "笔记未发布的修改",
        "CUDA的草稿",
        "CUDA未发布的修改",
    }
    assert {t for _, _, t, _ in finding_rows(panel, "writing-links")} == {
        "笔记坏链接",
        "CUDA坏链接",
    }
    assert panel.find(id="writing-formulas").get_text() == "有错误的公式（2）"
    assert "另有 2 个页面" in panel.find(id="writing-unchecked").get_text()


@pytest.mark.parametrize("posts", [5, 50])
def test_an_editors_dashboard_queries_do_not_grow_with_the_number_of_posts(
    client, notes_editor, notes, series, posts, django_assert_max_num_queries
):
    make_site(notes, posts)
    make_site(series, posts, start=posts)
    client.force_login(notes_editor)
    client.get(reverse("wagtailadmin_home"))  # warm caches: content types, site

    # As for an editor of every page: the editable pages are a subquery of
    # each list's query, read from the group permissions Wagtail loads anyway.
    with django_assert_max_num_queries(QUERY_LIMIT):
        response = client.get(reverse("wagtailadmin_home"))

    panel = writing_panel(response)
    shown = min(posts, 8)
    assert len(rows(panel, "writing-drafts")) == shown
    assert len(rows(panel, "writing-scheduled")) == shown
    assert len(finding_rows(panel, "writing-links")) == shown
    assert panel.find(id="writing-links").get_text() == f"失效的内部链接（{posts}）"
    assert panel.find(id="writing-formulas").get_text() == f"有错误的公式（{posts}）"


def test_a_save_leaves_the_check_of_its_formulas_to_a_task_worker(
    as_editor, series, database_queue
):
    # A long derivation's save does not wait for KaTeX's answer on each of its
    # formulas: the dashboard's check is queued, and counted as not yet done.
    post = PostPageFactory(parent=series, title="长推导")
    post.body = [("markdown", "$$\\frac{1}{2$$\n\n$$E = mc^2$$")]
    post.save_revision()
    panel = writing_panel(as_editor.get(reverse("wagtailadmin_home")))
    assert "另有 1 个页面" in panel.find(id="writing-unchecked").get_text()

    run_worker()

    panel = writing_panel(as_editor.get(reverse("wagtailadmin_home")))
    assert panel.find(id="writing-unchecked") is None
    assert panel.find(id="writing-formulas").get_text() == "有错误的公式（1）"
    assert [tex for _, _, tex, _ in finding_rows(panel, "writing-formulas")] == [
        "\\frac{1}{2"
    ]


def test_a_worker_behind_the_editor_checks_the_newest_revision_only(
    as_editor, series, database_queue
):
    post = PostPageFactory(parent=series, title="改过的推导")
    post.body = [("markdown", "$$\\frac{1}{2$$")]
    post.save_revision()
    post.body = [("markdown", "$$\\sqrt{2$$")]
    post.save_revision()

    run_worker()

    panel = writing_panel(as_editor.get(reverse("wagtailadmin_home")))
    assert [tex for _, _, tex, _ in finding_rows(panel, "writing-formulas")] == [
        "\\sqrt{2"
    ]
