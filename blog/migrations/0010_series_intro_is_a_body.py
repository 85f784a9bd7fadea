"""A series intro becomes a body like a post's (the same blocks).

Each rich-text intro, on the page and in every revision, becomes one paragraph
block holding the same HTML. Going back keeps the paragraph blocks' HTML and
drops the others.
"""

import json
import uuid

import wagtail.fields
from django.db import migrations

import blog.blocks.code


def _as_stream(html):
    if not html or not html.strip():
        return []
    return [{"type": "paragraph", "value": html, "id": str(uuid.uuid4())}]


def _as_html(stream):
    if isinstance(stream, str):
        try:
            stream = json.loads(stream) if stream.strip() else []
        except ValueError:
            return stream  # never migrated: still rich text
    return "".join(
        block.get("value") or ""
        for block in stream or []
        if isinstance(block, dict) and block.get("type") == "paragraph"
    )


def _series_revisions(apps):
    Revision = apps.get_model("wagtailcore", "Revision")
    return Revision.objects.filter(
        content_type__app_label="blog", content_type__model="seriespage"
    )


def forwards(apps, schema_editor):
    SeriesPage = apps.get_model("blog", "SeriesPage")
    for pk, html in SeriesPage.objects.values_list("pk", "intro"):
        SeriesPage.objects.filter(pk=pk).update(intro_body=_as_stream(html))
    for revision in _series_revisions(apps).iterator():
        intro = revision.content.get("intro")
        if isinstance(intro, str) and not intro.lstrip().startswith("["):
            revision.content["intro"] = json.dumps(_as_stream(intro))
            revision.save(update_fields=["content"])


def backwards(apps, schema_editor):
    SeriesPage = apps.get_model("blog", "SeriesPage")
    for page in SeriesPage.objects.all():
        SeriesPage.objects.filter(pk=page.pk).update(
            intro=_as_html(page.intro_body.raw_data)
        )
    for revision in _series_revisions(apps).iterator():
        intro = revision.content.get("intro")
        if isinstance(intro, str | list):
            revision.content["intro"] = _as_html(intro)
            revision.save(update_fields=["content"])


class Migration(migrations.Migration):
    dependencies = [
        ("blog", "0009_headings_and_languages"),
        ("wagtailcore", "0098_apitoken"),
    ]

    operations = [
        migrations.AddField(
            model_name="seriespage",
            name="intro_body",
            field=wagtail.fields.StreamField(
                [
                    ("heading", 2),
                    ("paragraph", 3),
                    ("markdown", 4),
                    ("code", 10),
                    ("math", 13),
                    ("image", 17),
                    ("table", 18),
                    ("callout", 22),
                    ("quote", 25),
                    ("embed", 26),
                    ("html_figure", 29),
                ],
                blank=True,
                block_lookup={
                    0: (
                        "wagtail.blocks.CharBlock",
                        (),
                        {
                            "help_text": "行内公式写作 $…$ 或 \\(…\\)；字面的美元符号写作 \\$。",
                            "label": "标题文字",
                            "max_length": 1000,
                        },
                    ),
                    1: (
                        "wagtail.blocks.ChoiceBlock",
                        [],
                        {
                            "choices": [("h2", "H2"), ("h3", "H3"), ("h4", "H4")],
                            "label": "级别",
                        },
                    ),
                    2: (
                        "wagtail.blocks.StructBlock",
                        [[("text", 0), ("level", 1)]],
                        {"label": "标题"},
                    ),
                    3: ("blog.blocks.ParagraphBlock", (), {"label": "段落"}),
                    4: ("blog.blocks.MarkdownBlock", (), {"label": "Markdown"}),
                    5: (
                        "wagtail.blocks.ChoiceBlock",
                        [],
                        {"choices": blog.blocks.code.code_languages, "label": "语言"},
                    ),
                    6: (
                        "wagtail.blocks.CharBlock",
                        (),
                        {
                            "help_text": "文件名或说明，显示在代码上方",
                            "label": "文件名",
                            "max_length": 255,
                            "required": False,
                        },
                    ),
                    7: ("blog.blocks.CodeTextBlock", (), {"label": "代码", "rows": 10}),
                    8: (
                        "wagtail.blocks.CharBlock",
                        (),
                        {
                            "help_text": "高亮的行，例如 1,3-5",
                            "label": "高亮行",
                            "max_length": 255,
                            "required": False,
                        },
                    ),
                    9: (
                        "wagtail.blocks.BooleanBlock",
                        (),
                        {"default": True, "label": "显示行号", "required": False},
                    ),
                    10: (
                        "wagtail.blocks.StructBlock",
                        [
                            [
                                ("language", 5),
                                ("filename", 6),
                                ("code", 7),
                                ("highlight_lines", 8),
                                ("line_numbers", 9),
                            ]
                        ],
                        {"label": "代码"},
                    ),
                    11: (
                        "wagtail.blocks.TextBlock",
                        (),
                        {
                            "help_text": "LaTeX，不需要 $$；多行公式用 \\begin{aligned}…\\end{aligned}",
                            "label": "公式",
                            "rows": 4,
                        },
                    ),
                    12: (
                        "wagtail.blocks.CharBlock",
                        (),
                        {
                            "help_text": "编号，例如 1（显示为 (1)）",
                            "label": "编号",
                            "max_length": 32,
                            "required": False,
                        },
                    ),
                    13: (
                        "wagtail.blocks.StructBlock",
                        [[("tex", 11), ("label", 12)]],
                        {"label": "公式"},
                    ),
                    14: (
                        "wagtail.images.blocks.ImageChooserBlock",
                        (),
                        {"label": "图片"},
                    ),
                    15: (
                        "wagtail.blocks.CharBlock",
                        (),
                        {
                            "help_text": "替代文本；留空则使用图片标题",
                            "label": "替代文本",
                            "max_length": 255,
                            "required": False,
                        },
                    ),
                    16: (
                        "wagtail.blocks.CharBlock",
                        (),
                        {
                            "help_text": "行内公式写作 $…$ 或 \\(…\\)；字面的美元符号写作 \\$。",
                            "label": "图注",
                            "max_length": 500,
                            "required": False,
                        },
                    ),
                    17: (
                        "wagtail.blocks.StructBlock",
                        [[("image", 14), ("alt", 15), ("caption", 16)]],
                        {"label": "图片"},
                    ),
                    18: ("blog.blocks.TableBlock", (), {"label": "表格"}),
                    19: (
                        "wagtail.blocks.ChoiceBlock",
                        [],
                        {
                            "choices": [
                                ("note", "注意 Note"),
                                ("tip", "提示 Tip"),
                                ("info", "信息 Info"),
                                ("warning", "警告 Warning"),
                                ("danger", "危险 Danger"),
                            ],
                            "label": "类型",
                        },
                    ),
                    20: (
                        "wagtail.blocks.CharBlock",
                        (),
                        {"label": "标题", "max_length": 255, "required": False},
                    ),
                    21: ("blog.blocks.ParagraphBlock", (), {"label": "内容"}),
                    22: (
                        "wagtail.blocks.StructBlock",
                        [[("kind", 19), ("title", 20), ("body", 21)]],
                        {"label": "提示框"},
                    ),
                    23: ("blog.blocks.ParagraphBlock", (), {"label": "引文"}),
                    24: (
                        "wagtail.blocks.CharBlock",
                        (),
                        {"label": "出处", "max_length": 255, "required": False},
                    ),
                    25: (
                        "wagtail.blocks.StructBlock",
                        [[("quote", 23), ("source", 24)]],
                        {"label": "引用"},
                    ),
                    26: ("blog.blocks.EmbedBlock", (), {"label": "嵌入"}),
                    27: (
                        "wagtail.blocks.TextBlock",
                        (),
                        {
                            "help_text": "完整的 HTML（可含 <script>、<svg>）。它在沙箱 iframe 中运行，无法访问本站。",
                            "label": "HTML",
                            "rows": 12,
                        },
                    ),
                    28: (
                        "wagtail.blocks.IntegerBlock",
                        (),
                        {
                            "default": 420,
                            "label": "高度（像素）",
                            "max_value": 4000,
                            "min_value": 80,
                        },
                    ),
                    29: (
                        "wagtail.blocks.StructBlock",
                        [[("html", 27), ("height", 28), ("caption", 16)]],
                        {"label": "交互式图"},
                    ),
                },
            ),
        ),
        migrations.RunPython(forwards, backwards),
        migrations.RemoveField(model_name="seriespage", name="intro"),
        migrations.RenameField(
            model_name="seriespage", old_name="intro_body", new_name="intro"
        ),
    ]
