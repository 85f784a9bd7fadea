"""Driving Wagtail's page editor as an editor would: its URLs and its form."""

import json

from bs4 import BeautifulSoup
from django.contrib.auth.models import Group
from django.urls import reverse
from wagtail.models import Page
from wagtail.test.utils.form_data import nested_form_data, rich_text, streamfield

from blog.blocks import RICH_TEXT_FEATURES


def user_in_group(django_user_model, group_name):
    user = django_user_model.objects.create_user(
        group_name.lower(), f"{group_name.lower()}@example.com", "password"
    )
    user.groups.add(Group.objects.get(name=group_name))
    return user


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


PREVIEW_BODY = [
    ("paragraph", paragraph("<p>设 $n = 2^k$。</p>")),
    ("math", {"tex": r"\sum_i x_i", "label": ""}),
    ("code", code("__global__ void k() {}")),
]
