"""The page editor: its block menu, KaTeX's message on save, live preview, tags."""

import datetime
import json

import pytest
import wagtail_factories
from bs4 import BeautifulSoup
from django.urls import reverse
from wagtail.admin.widgets import AdminTagWidget

from blog.blocks import PostBodyBlock
from blog.models import PostPage
from tests.blog.admin.editing import (
    PREVIEW_BODY,
    add_url,
    body_definition,
    code,
    edit_url,
    form_data,
    html_of,
    paragraph,
    stream_errors,
)
from tests.factories import PostPageFactory

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
        "note": "文本",
        "code": "代码与公式",
        "math": "代码与公式",
        "diagram": "代码与公式",
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
        (
            "文本",
            ["heading", "paragraph", "markdown", "table", "callout", "quote", "note"],
        ),
        ("代码与公式", ["code", "math", "diagram"]),
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
    assert message.startswith("公式错误：")


def test_bad_inline_math_in_an_image_caption_is_reported_on_the_caption(
    admin_client, series
):
    image = wagtail_factories.ImageFactory(title="smem")
    body = [("image", {"image": image.pk, "alt": "", "caption": f"图 1 ${BAD_TEX}$"})]

    response = admin_client.post(add_url(series), form_data(body, "publish"))

    assert not PostPage.objects.exists()
    errors = stream_errors(response)["blockErrors"]
    (message,) = errors["0"]["blockErrors"]["caption"]["messages"]
    assert message.startswith("公式错误：")


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
    assert message.startswith("公式错误：")
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
