"""An empty render cache never makes a reader wait: what a request's budget
leaves is shown as source (or the original image) and not cached, and
publishing, saving an image and `warm_cache` render it all ahead of readers."""

import re

import pytest
import wagtail_factories
from django.core.cache import caches
from django.core.management import call_command
from wagtail.images import get_image_model

from blog.models import PostPage
from blog.templatetags.picture_tags import picture_specs
from tests.factories import PostPageFactory

FORMULAS = [f"x_{{{i}}} + y^{{{i}}}" for i in range(12)]


@pytest.fixture(autouse=True)
def cold(settings):
    """An empty render cache and page cache; the page cache on."""
    settings.PAGE_CACHE_SECONDS = 3600
    caches["renders"].clear()
    caches["default"].clear()


@pytest.fixture
def spent(settings):
    """A reader's budget that is spent as soon as the request starts."""
    settings.RENDER_BUDGET_SECONDS = 1e-9


def math_post(home, django_capture_on_commit_callbacks, *, warm=False, **fields):
    post = PostPageFactory(parent=home, **fields)
    post.body = [("math", {"tex": tex, "label": ""}) for tex in FORMULAS] + [
        ("code", {"language": "cuda", "code": "__global__ void k() {}"})
    ]
    with django_capture_on_commit_callbacks(execute=warm):
        post.save_revision().publish()
    if not warm:
        # Saving checks each formula for the writing dashboard, which leaves
        # its render in the cache: a new server would not have it.
        caches["renders"].clear()
    return PostPage.objects.get(pk=post.pk)


def test_a_cold_post_past_its_budget_shows_sources_and_is_not_cached(
    client, home, spent, django_capture_on_commit_callbacks
):
    post = math_post(home, django_capture_on_commit_callbacks, slug="cold")
    response = client.get(post.url)
    assert response.status_code == 200
    html = response.content.decode()
    assert html.count('class="math-pending"') == len(FORMULAS)
    assert "<code>x_{3} + y^{3}</code>" in html
    assert "__global__ void k() {}" in html
    assert "no-cache" in response["Cache-Control"]
    # Not kept by the page cache: the next request renders again.
    assert client.get(post.url).content.decode().count("math-pending") == len(FORMULAS)


def test_once_rendered_the_page_is_whole_and_cached(
    client, home, settings, django_capture_on_commit_callbacks
):
    post = math_post(home, django_capture_on_commit_callbacks, slug="later")
    settings.RENDER_BUDGET_SECONDS = 60
    whole = client.get(post.url)
    assert "math-pending" not in whole.content.decode()
    assert whole.content.decode().count('class="katex-display"') == len(FORMULAS)
    assert "no-cache" not in whole.get("Cache-Control", "")
    # Served whole from then on, even by a request with no time to render:
    # from the render cache, with the page cache out of the way.
    settings.RENDER_BUDGET_SECONDS = 1e-9
    settings.PAGE_CACHE_SECONDS = 0
    again = client.get(post.url).content.decode()
    assert "math-pending" not in again


def test_publishing_renders_the_post_before_any_reader_comes(
    client, home, spent, django_capture_on_commit_callbacks
):
    post = math_post(home, django_capture_on_commit_callbacks, slug="warm", warm=True)
    response = client.get(post.url)
    html = response.content.decode()
    assert "math-pending" not in html
    assert html.count('class="katex-display"') == len(FORMULAS)
    assert "no-cache" not in response.get("Cache-Control", "")
    feed = client.get("/feed/").content.decode()
    assert "阅读全文" not in feed
    assert feed.count("&lt;math") >= len(FORMULAS)


def test_a_cold_feed_serves_summaries_for_what_its_budget_left(
    client, home, spent, django_capture_on_commit_callbacks
):
    math_post(home, django_capture_on_commit_callbacks, slug="f", summary="摘要甲")
    response = client.get("/feed/")
    assert response.status_code == 200
    feed = response.content.decode()
    assert "摘要甲" in feed and "阅读全文" in feed
    assert "&lt;math" not in feed
    assert "no-cache" in response["Cache-Control"]


def test_warm_cache_renders_the_whole_site(
    client, home, spent, django_capture_on_commit_callbacks, capsys
):
    post = math_post(home, django_capture_on_commit_callbacks, slug="site")
    call_command("warm_cache", "--no-progress")
    assert "Warmed" in capsys.readouterr().out
    assert "math-pending" not in client.get(post.url).content.decode()
    assert "阅读全文" not in client.get("/feed/").content.decode()


def image_post(home, image, django_capture_on_commit_callbacks):
    post = PostPageFactory(parent=home, slug="pic")
    post.body = [("image", {"image": image, "alt": "示意图", "caption": ""})]
    with django_capture_on_commit_callbacks(execute=False):
        post.save_revision().publish()
    return post


def test_an_image_whose_renditions_are_not_made_shows_the_original(
    client, home, spent, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False):
        image = wagtail_factories.ImageFactory(file__width=1000, file__height=500)
    post = image_post(home, image, django_capture_on_commit_callbacks)
    response = client.get(post.url)
    html = response.content.decode()
    img = re.search(r'<img[^>]*alt="示意图"[^>]*>', html)[0]
    assert f'src="{image.file.url}"' in img
    assert 'width="1000"' in img and 'height="500"' in img
    assert "<picture" not in html
    assert "no-cache" in response["Cache-Control"]
    assert image.renditions.count() == 0  # the reader did not wait for them


def test_saving_an_image_makes_every_rendition_a_page_shows(
    client, home, spent, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        image = wagtail_factories.ImageFactory(file__width=1000, file__height=500)
    # AVIF and WebP at 480, 800 and the original 1000 px.
    assert image.renditions.count() == len(picture_specs(image)) == 6
    post = image_post(home, image, django_capture_on_commit_callbacks)
    html = client.get(post.url).content.decode()
    assert html.count("<source") == 2  # AVIF and WebP
    assert "480w" in html and "1000w" in html
    # The original only as the <img> of browsers that read neither format.
    assert html.count(image.file.url) == 1


def test_renaming_an_image_does_not_make_its_renditions_again(
    django_capture_on_commit_callbacks, db
):
    with django_capture_on_commit_callbacks(execute=True):
        image = wagtail_factories.ImageFactory(file__width=600, file__height=300)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        image.title = "新名字"
        image.save(update_fields=["title"])
    assert callbacks == []
    assert get_image_model().objects.get(pk=image.pk).renditions.count() == 4
