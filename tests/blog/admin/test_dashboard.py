"""The dashboard's writing panel: drafts and recently updated posts."""

import datetime

from django.contrib.auth.models import Group, Permission
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from wagtail.models import Page, Revision

from tests.blog.admin.editing import edit_url, html_of
from tests.factories import PostPageFactory


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
