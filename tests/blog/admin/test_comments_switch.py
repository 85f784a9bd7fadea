"""The "allow comments" switch: hidden while readers cannot comment (issue 24)."""

from bs4 import BeautifulSoup

from tests.blog.admin.editing import add_url, edit_url, form_data, paragraph
from tests.factories import PostPageFactory


def test_the_post_forms_show_no_comments_switch(admin_client, series):
    post = PostPageFactory(parent=series)

    for url in (add_url(series), edit_url(post)):
        page = admin_client.get(url).content.decode()
        soup = BeautifulSoup(page, "html.parser")
        assert soup.select("form [name=title]")  # The editor's form is there.
        assert not soup.select("[name=comments]")
        assert "允许评论" not in soup.get_text()


def test_saving_in_the_admin_keeps_the_imported_comments_setting(admin_client, series):
    # Set by `import_markdown` (front matter `comments: true`), for issue 24.
    post = PostPageFactory(parent=series, comments=True)
    post.save_revision().publish()

    response = admin_client.post(
        edit_url(post), form_data([("paragraph", paragraph("<p>新</p>"))], "publish")
    )

    assert response.status_code == 302
    post.refresh_from_db()
    assert post.comments is True
