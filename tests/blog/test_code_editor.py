"""The code block's source field: a code editor widget in the admin.

The browser side (CodeMirror) is checked in tests/e2e/test_code_editor.py;
here, what the server hands it and what it takes back.
"""

import json

import pytest
from django.contrib.staticfiles import finders
from django.templatetags.static import static
from django.urls import reverse
from wagtail.admin.telepath import JSContext
from wagtail.test.utils.form_data import nested_form_data, streamfield

from blog.blocks import CodeBlock, MarkdownBlock, PostBodyBlock
from blog.models import PostPage
from blog.widgets import CODE_EDITOR_JS, CodeEditor, CodeEditorAdapter

SOURCE = "__global__ void k(float* x) {\n    x[0] = 1.0f;  \n\t// tab\n}\n"


def test_the_code_field_is_a_code_editor_following_the_language_field():
    widget = CodeBlock().child_blocks["code"].field.widget

    assert isinstance(widget, CodeEditor)
    assert widget.language_field == "language"


def test_markdown_keeps_its_plain_textarea():
    assert not isinstance(MarkdownBlock().field.widget, CodeEditor)


def test_the_widget_renders_a_textarea_holding_the_source_as_is():
    html = CodeEditor(language_field="language").render(
        "body-0-value-code", "a < b &&\n  c", attrs={"id": "body-0-value-code"}
    )

    assert html.startswith("<textarea")
    assert 'name="body-0-value-code"' in html
    assert 'spellcheck="false"' in html
    assert ">\na &lt; b &amp;&amp;\n  c</textarea>" in html


def test_the_adapter_hands_the_script_a_template_and_its_options():
    widget = CodeEditor(language_field="language")
    template, options = CodeEditorAdapter().js_args(widget)

    assert 'name="__NAME__"' in template
    assert 'id="__ID__"' in template
    assert options["languageField"] == "language"
    assert "Esc" in options["hint"]


def test_the_body_definition_names_the_editor_and_loads_its_script():
    context = JSContext()
    packed = json.dumps(context.pack(PostBodyBlock()))

    assert '"blog.widgets.CodeEditor"' in packed
    assert static(CODE_EDITOR_JS) in str(context.media)


def test_the_editor_script_is_among_the_static_files():
    assert finders.find(CODE_EDITOR_JS), (
        f"{CODE_EDITOR_JS} is not built: run `make install` (or `npm run build`)"
    )


@pytest.mark.parametrize("line_break", ["\n", "\r\n"])
def test_posted_source_comes_back_exactly_with_lf_line_breaks(line_break):
    block = CodeBlock()
    data = {
        "code-language": "cuda",
        "code-filename": "",
        "code-code": SOURCE.replace("\n", line_break),
        "code-highlight_lines": "2",
        "code-line_numbers": "on",
    }

    value = block.clean(block.value_from_datadict(data, {}, "code"))

    assert value["code"] == SOURCE


def test_a_post_saved_from_the_admin_keeps_the_code_as_typed(admin_client, home):
    body = [
        (
            "code",
            {
                "language": "cuda",
                "filename": "k.cu",
                # What a browser posts: CR LF between lines.
                "code": SOURCE.replace("\n", "\r\n"),
                "highlight_lines": "",
                "line_numbers": "on",
            },
        )
    ]
    data = nested_form_data(
        {
            "title": "代码",
            "slug": "code",
            "summary": "",
            "date": "2026-09-01",
            "updated": "2026-09-01",
            "tags": "",
            "body": streamfield(body),
        }
    )

    response = admin_client.post(
        reverse("wagtailadmin_pages:add", args=("blog", "postpage", home.pk)), data
    )

    assert response.status_code == 302
    draft = PostPage.objects.get(slug="code").get_latest_revision_as_object()
    assert draft.body[0].value["code"] == SOURCE
    edit = admin_client.get(reverse("wagtailadmin_pages:edit", args=(draft.pk,)))
    assert static(CODE_EDITOR_JS) in edit.content.decode()
