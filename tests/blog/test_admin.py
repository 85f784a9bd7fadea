"""Writing a post in the real Wagtail admin: the form, its validation, page rules."""

import html
import json
import re

import pytest
from bs4 import BeautifulSoup
from django.urls import reverse
from wagtail.test.utils.form_data import nested_form_data, rich_text, streamfield

from blog.blocks import RICH_TEXT_FEATURES
from blog.models import PostPage, SeriesPage, TagIndexPage
from tests.factories import PostPageFactory, SeriesPageFactory
from tests.math_bombs import MACRO_BOMB


@pytest.fixture
def series(home):
    return SeriesPageFactory(parent=home, title="CUDA", slug="cuda")


def add_url(model_name, parent):
    return reverse("wagtailadmin_pages:add", args=("blog", model_name, parent.pk))


def post_data(body, **fields):
    """Return the create form's data for a published post with this body."""
    return nested_form_data(
        {
            "title": "共享内存",
            "slug": "shared-memory",
            "summary": "Bank conflict 与 padding。",
            "date": "2026-09-01",
            "updated": "2026-09-01",
            "tags": "cuda",
            "body": streamfield(body),
            "action-publish": "action-publish",
            **fields,
        }
    )


def stream_state(response):
    """Return (blocks, errors) the admin's body StreamField is re-shown with."""
    page = BeautifulSoup(response.content.decode(), "html.parser")
    field = page.find(attrs={"data-w-block-arguments-value": True})
    blocks, errors = json.loads(field["data-w-block-arguments-value"])[:2]
    return blocks, errors


def assert_refused(response):
    """Assert Wagtail sent the editor back to the dashboard with its refusal."""
    assert response.redirect_chain == [(reverse("wagtailadmin_home"), 302)]
    assert "对不起， 你没有权限访问。" in response.content.decode()


def test_create_post_form_loads_in_simplified_chinese(admin_client, series):
    response = admin_client.get(add_url("postpage", series))

    html = response.content.decode()
    assert response.status_code == 200
    assert '<html lang="zh-hans"' in html
    # Wagtail's own strings, translated, and the model's field labels.
    assert "发布" in html
    assert "设置发布计划" in html
    assert "更新日期" in html


def test_post_with_bad_latex_is_not_saved_and_shows_katex_message(admin_client, series):
    body = [
        ("heading", {"text": "引言", "level": "h2"}),
        ("math", {"tex": r"\frac{a", "label": "1"}),
    ]

    response = admin_client.post(add_url("postpage", series), post_data(body))

    assert response.status_code == 200
    assert not PostPage.objects.exists()
    blocks, errors = stream_state(response)
    # The editor's input comes back, with KaTeX's message under the formula.
    assert blocks[1]["value"]["tex"] == r"\frac{a"
    (message,) = errors["blockErrors"]["1"]["blockErrors"]["tex"]["messages"]
    assert message.startswith("公式错误：")
    assert "0" not in errors["blockErrors"]


def test_bad_inline_math_in_a_paragraph_is_reported_on_the_block(admin_client, series):
    paragraph = rich_text(r"<p>设 $\frac{a$。</p>", features=RICH_TEXT_FEATURES)

    response = admin_client.post(
        add_url("postpage", series), post_data([("paragraph", paragraph)])
    )

    assert response.status_code == 200
    assert not PostPage.objects.exists()
    _, errors = stream_state(response)
    (message,) = errors["blockErrors"]["0"]["messages"]
    assert message.startswith("公式错误：")


TOO_LARGE = "公式展开后过大（超过 10,000 个元素），请简化宏定义。"


@pytest.mark.parametrize(
    ("block", "where"),
    [
        (("math", {"tex": MACRO_BOMB, "label": ""}), ["blockErrors", "tex"]),
        (
            ("paragraph", rich_text(f"<p>设 ${MACRO_BOMB}$。</p>")),
            [],
        ),
        (("markdown", f"正文\n\n$${MACRO_BOMB}$$\n"), []),
    ],
    ids=["math", "paragraph", "markdown"],
)
def test_a_macro_bomb_is_refused_with_the_bound_it_passes(
    admin_client, series, block, where
):
    response = admin_client.post(add_url("postpage", series), post_data([block]))

    assert response.status_code == 200
    assert not PostPage.objects.exists()
    _, errors = stream_state(response)
    error = errors["blockErrors"]["0"]
    for key in where:
        error = error[key]
    assert error["messages"] == [TOO_LARGE]


def test_the_output_bound_is_a_setting(admin_client, series, settings):
    settings.MATH_MAX_OUTPUT_BYTES = 2_000
    body = [("math", {"tex": r"\sum_{i=0}^{n} \frac{a_i}{b_i} x^i", "label": ""})]

    response = admin_client.post(add_url("postpage", series), post_data(body))

    assert not PostPage.objects.exists()
    _, errors = stream_state(response)
    assert errors["blockErrors"]["0"]["blockErrors"]["tex"]["messages"] == [
        "公式展开后过大（超过 2 KB），请简化宏定义。"
    ]


def test_valid_post_is_saved_published_and_rendered(admin_client, series):
    body = [
        ("heading", {"text": "分块 $B_r$", "level": "h2"}),
        ("paragraph", rich_text("<p>设 $n = 2^k$。</p>", features=RICH_TEXT_FEATURES)),
        ("math", {"tex": r"\frac{a}{b}", "label": "1"}),
        (
            "code",
            {
                "language": "cuda",
                "filename": "k.cu",
                "code": "__global__ void k() {}",
                "highlight_lines": "1",
                "line_numbers": "on",
            },
        ),
    ]

    response = admin_client.post(add_url("postpage", series), post_data(body))

    assert response.status_code == 302
    post = PostPage.objects.get(slug="shared-memory")
    assert post.live
    assert post.get_parent().specific == series
    assert [child.block_type for child in post.body] == [
        "heading",
        "paragraph",
        "math",
        "code",
    ]
    assert [tag.name for tag in post.tags.all()] == ["cuda"]
    admin_client.logout()
    page = admin_client.get(post.url).content.decode()
    assert 'id="分块-b-r"' in page
    assert 'class="katex-display"' in page
    assert '<span class="kr">__global__</span>' in page


def test_updated_before_date_is_shown_on_the_field(admin_client, series):
    data = post_data([], date="2026-09-10", updated="2026-09-01")

    response = admin_client.post(add_url("postpage", series), data)

    assert response.status_code == 200
    assert not PostPage.objects.exists()
    assert "更新日期不能早于发布日期。" in response.content.decode()


def test_post_cannot_be_added_under_a_post(admin_client, series):
    post = PostPageFactory(parent=series)

    shown = admin_client.get(add_url("postpage", post), follow=True)
    submitted = admin_client.post(add_url("postpage", post), post_data([]), follow=True)

    assert not PostPage.can_create_at(post)
    assert_refused(shown)
    assert_refused(submitted)
    assert list(PostPage.objects.all()) == [post]


def test_second_tag_index_cannot_be_created(admin_client, home):
    # The data migration already made /tags/.
    assert TagIndexPage.objects.count() == 1

    response = admin_client.get(add_url("tagindexpage", home), follow=True)

    assert not TagIndexPage.can_create_at(home)
    assert_refused(response)
    assert TagIndexPage.objects.count() == 1


def test_page_type_chooser_under_home_offers_only_creatable_types(admin_client, home):
    response = admin_client.get(
        reverse("wagtailadmin_pages:add_subpage", args=(home.pk,))
    )

    html = response.content.decode()
    assert response.status_code == 200
    assert add_url("postpage", home) in html
    assert (
        reverse("wagtailadmin_pages:add", args=("blog", "seriespage", home.pk)) in html
    )
    assert add_url("tagindexpage", home) not in html
    assert add_url("archivepage", home) not in html
    assert add_url("homepage", home) not in html


def test_a_series_intro_is_written_with_the_post_blocks(admin_client, home, client):
    intro = [
        (
            "paragraph",
            rich_text("<p>从向量加法到 GEMM。</p>", features=RICH_TEXT_FEATURES),
        ),
        (
            "code",
            {
                "language": "bash",
                "filename": "",
                "code": "nvcc -O3 add.cu",
                "highlight_lines": "",
                "line_numbers": "on",
            },
        ),
        ("math", {"tex": r"B = \frac{bytes}{t}", "label": ""}),
    ]
    data = nested_form_data(
        {
            "title": "CUDA",
            "slug": "cuda",
            "intro": streamfield(intro),
            "ordering": "explorer",
            "action-publish": "action-publish",
        }
    )

    response = admin_client.post(add_url("seriespage", home), data)

    assert response.status_code == 302
    series = SeriesPage.objects.get(slug="cuda")
    assert [child.block_type for child in series.intro] == ["paragraph", "code", "math"]
    html = client.get("/cuda/").content.decode()
    assert "从向量加法到 GEMM。" in html
    assert "nvcc" in html and 'class="katex-display"' in html


def test_a_highlight_written_in_the_editor_is_kept_and_shown(admin_client, series):
    # Draftail's 高亮 (Obsidian's ==text==) is stored as <mark> and shown so.
    body = [
        (
            "paragraph",
            rich_text(
                "<p>瓶颈在于<mark>合并访存</mark>。</p>", features=RICH_TEXT_FEATURES
            ),
        )
    ]
    response = admin_client.post(add_url("postpage", series), post_data(body))

    assert response.status_code == 302
    post = PostPage.objects.get(slug="shared-memory")
    assert "<mark>合并访存</mark>" in post.body[0].value.source
    # The editor's toolbar offers it: the block's Draftail options name it.
    form = admin_client.get(reverse("wagtailadmin_pages:edit", args=[post.pk]))
    styles = re.findall(
        r'\{"type": "MARK"[^{}]*\}', html.unescape(form.content.decode())
    )
    assert [json.loads(style)["description"] for style in styles] == [
        "高亮（==文字==）"
    ]
    assert (
        'id="icon-highlighter"'
        in admin_client.get(reverse("wagtailadmin_sprite")).content.decode()
    )
    admin_client.logout()
    page = BeautifulSoup(admin_client.get(post.url).content, "html.parser")
    assert [mark.get_text() for mark in page.select("article mark")] == ["合并访存"]
