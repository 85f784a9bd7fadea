"""An interactive figure's own document: served for live pages readers may see, purged with its page."""

import pytest
from bs4 import BeautifulSoup
from django.urls import reverse
from wagtail.models import PageViewRestriction

from blog.blocks import FIGURE_SIZE_SCRIPT as SIZED
from blog.models import PostPage, SeriesPage
from tests.blog.admin.editing import form_data
from tests.factories import PostPageFactory

SCRIPT = "document.body.dataset.drawn = 'yes';"


def figure(html: str, height: int = 200) -> dict:
    return {"html": html, "height": height, "caption": ""}


def figure_srcs(response) -> list[str]:
    """Return the figure documents' URLs a page's iframes load."""
    page = BeautifulSoup(response.content, "html.parser")
    return [
        frame.get("src") for frame in page.select("figure.block-html-figure iframe")
    ]


def publish(page, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        page.save_revision().publish()


@pytest.fixture
def figure_post(home):
    post = PostPageFactory(parent=home, slug="figure", title="有图")
    post.body = [
        ("html_figure", figure(f"<p>甲</p><script>{SCRIPT}</script>")),
        ("html_figure", figure("<p>乙</p>")),
    ]
    post.save_revision().publish()
    return PostPage.objects.get(pk=post.pk)


def test_each_figure_is_served_at_its_own_path_under_the_page(client, figure_post):
    ids = [block.id for block in figure_post.body]
    assert figure_srcs(client.get("/figure/")) == [f"/figure/figures/{i}/" for i in ids]
    first, second = (client.get(f"/figure/figures/{i}/") for i in ids)
    # Each ends with the script that sizes its frame to its content.
    assert first.content.decode() == f"<p>甲</p><script>{SCRIPT}</script>" + SIZED
    assert second.content.decode() == "<p>乙</p>" + SIZED
    assert first["Content-Type"] == "text/html; charset=utf-8"
    # Not a page of its own for search engines.
    assert first["X-Robots-Tag"] == "noindex"


def test_an_unknown_figure_is_not_found(client, figure_post):
    assert client.get("/figure/figures/no-such-block/").status_code == 404
    assert client.get("/figure/figures/").status_code == 404


def test_a_figure_of_a_draft_is_not_served(client, home):
    draft = PostPageFactory(parent=home, slug="draft", title="草稿", live=False)
    draft.body = [("html_figure", figure(f"<script>{SCRIPT}</script>"))]
    draft.save_revision()
    block_id = draft.get_latest_revision_as_object().body[0].id
    response = client.get(f"/draft/figures/{block_id}/")
    assert response.status_code == 404
    assert SCRIPT not in response.content.decode()


def test_a_figure_only_in_a_page_s_unpublished_changes_is_not_served(
    client, figure_post
):
    figure_post.body = [
        *figure_post.body.raw_data,
        {"type": "html_figure", "value": figure("<p>未发布</p>")},
    ]
    revision = figure_post.save_revision()
    new_id = revision.as_object().body[2].id
    assert client.get(f"/figure/figures/{new_id}/").status_code == 404


def test_a_figure_of_an_unpublished_page_is_not_served(client, figure_post):
    url = figure_srcs(client.get("/figure/"))[0]
    figure_post.unpublish()
    assert client.get(url).status_code == 404


@pytest.mark.parametrize("page_cache", [0, 3600])
def test_a_figure_of_a_private_page_is_not_served_to_anonymous_readers(
    client, figure_post, settings, page_cache, django_capture_on_commit_callbacks
):
    settings.PAGE_CACHE_SECONDS = page_cache
    url = figure_srcs(client.get("/figure/"))[0]
    assert client.get(url).status_code == 200  # public: cached if the cache is on
    with django_capture_on_commit_callbacks(execute=True):
        PageViewRestriction.objects.create(
            page=figure_post, restriction_type=PageViewRestriction.LOGIN
        )
    response = client.get(url)
    # Sent to the login page, as for the page itself.
    assert response.status_code == 302
    assert "/login/?next=" in response["Location"]
    assert SCRIPT not in response.content.decode()


def test_a_reader_who_may_see_a_private_page_sees_its_figures(
    admin_client, figure_post
):
    PageViewRestriction.objects.create(
        page=figure_post, restriction_type=PageViewRestriction.LOGIN
    )
    url = figure_srcs(admin_client.get("/figure/"))[0]
    assert SCRIPT in admin_client.get(url).content.decode()


def test_publishing_a_change_purges_the_figure(
    client, figure_post, settings, django_capture_on_commit_callbacks
):
    settings.PAGE_CACHE_SECONDS = 3600
    url = figure_srcs(client.get("/figure/"))[0]
    client.get(url)
    assert client.get(url)["X-Page-Cache"] == "hit"

    first, second = figure_post.body.raw_data
    figure_post.body = [{**first, "value": figure("<p>甲，改过</p>")}, second]
    publish(figure_post, django_capture_on_commit_callbacks)

    response = client.get(url)
    assert response["X-Page-Cache"] == "miss"
    assert response.content.decode() == "<p>甲，改过</p>" + SIZED


def test_a_figure_a_publish_removes_is_purged(
    client, figure_post, settings, django_capture_on_commit_callbacks
):
    settings.PAGE_CACHE_SECONDS = 3600
    url = figure_srcs(client.get("/figure/"))[0]
    client.get(url)
    assert client.get(url)["X-Page-Cache"] == "hit"

    figure_post.body = figure_post.body.raw_data[1:]
    publish(figure_post, django_capture_on_commit_callbacks)

    assert client.get(url).status_code == 404


def test_a_series_intro_s_figures_are_served_too(
    client, home, django_capture_on_commit_callbacks, settings
):
    series = SeriesPage(title="系列", slug="series")
    home.add_child(instance=series)
    series.intro = [("html_figure", figure(f"<script>{SCRIPT}</script>"))]
    publish(series, django_capture_on_commit_callbacks)
    (url,) = figure_srcs(client.get("/series/"))
    assert url.startswith("/series/figures/")
    assert client.get(url).content.decode() == f"<script>{SCRIPT}</script>" + SIZED


def test_a_preview_shows_its_figures_inline(admin_client, figure_post):
    # A draft has no public URL: its figures are in the preview itself.
    url = reverse("wagtailadmin_pages:preview_on_edit", args=[figure_post.pk])
    posted = admin_client.post(
        url, form_data([("html_figure", figure(f"<script>{SCRIPT}</script>"))])
    )
    assert posted.json()["is_valid"] is True
    response = admin_client.get(url)
    frame = BeautifulSoup(response.content, "html.parser").select_one(
        "figure.block-html-figure iframe"
    )
    assert frame["srcdoc"] == f"<script>{SCRIPT}</script>"
    assert not frame.has_attr("src")
