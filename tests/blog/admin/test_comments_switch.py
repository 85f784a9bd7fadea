"""The "allow comments" switch (允许评论) in the post editor."""

from bs4 import BeautifulSoup

from tests.blog.admin.editing import add_url, edit_url, form_data, paragraph
from tests.factories import PostPageFactory


def test_the_post_forms_show_the_comments_switch(admin_client, series):
    post = PostPageFactory(parent=series, allow_comments=True)

    for url, checked in ((add_url(series), False), (edit_url(post), True)):
        page = admin_client.get(url).content.decode()
        soup = BeautifulSoup(page, "html.parser")
        switch = soup.select_one("form input[type=checkbox][name=allow_comments]")
        assert switch is not None
        assert switch.has_attr("checked") is checked
        assert "允许评论" in soup.select_one(f"label[for={switch['id']}]").get_text()


def test_the_switch_turns_comments_on_and_off(admin_client, series):
    # Set by `import_markdown` (front matter `comments: true`).
    post = PostPageFactory(parent=series, allow_comments=True)
    post.save_revision().publish()

    body = [("paragraph", paragraph("<p>新</p>"))]

    response = admin_client.post(
        edit_url(post), form_data(body, "publish", allow_comments="on")
    )
    assert response.status_code == 302
    post.refresh_from_db()
    assert post.allow_comments is True

    admin_client.post(edit_url(post), form_data(body, "publish"))
    post.refresh_from_db()
    assert post.allow_comments is False


def test_the_switch_leaves_wagtails_own_comments_to_editors(admin_client, series):
    # The editor's form holds Wagtail's formset of editors' comments under the
    # name ``comments``; the readers' switch has a name of its own.
    post = PostPageFactory(parent=series)
    form_class = post.get_edit_handler().get_form_class()
    assert "comments" in form_class.formsets
    assert "allow_comments" in form_class.base_fields
    assert "comments" not in form_class.base_fields
    page = admin_client.get(edit_url(post)).content.decode()
    assert 'name="allow_comments"' in page
