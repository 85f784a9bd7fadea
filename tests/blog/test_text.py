"""A body's text, read by each block's declaration: what search and reading time get.

The expected values are those of the per-type code this replaced
(the old search/engine.py's ``_block_text``, reading.py's ``_NOT_PROSE``).
"""

from blog.blocks import PostBodyBlock, Text
from blog.reading import reading_minutes
from blog.text import body_pieces, body_text

BODY = [
    {"type": "heading", "value": {"text": "共享内存 Bank  Conflict", "level": "h2"}},
    {
        "type": "paragraph",
        "value": "<p>每个 warp 有 <b>32</b> 个线程，$w=32$。</p><p>A&amp;B</p>",
    },
    {"type": "markdown", "value": "带宽 $I$ 决定上限。\n\n```c\nint x;\nint y;\n```\n"},
    {
        "type": "code",
        "value": {
            "language": "cuda",
            "filename": "add.cu",
            "code": "int i;\n\n  i++;",
            "highlight_lines": "1",
            "line_numbers": True,
        },
    },
    {"type": "math", "value": {"tex": "e^{x_i}", "label": "2"}},
    {
        "type": "image",
        "value": {"image": 1, "alt": "bank 冲突", "caption": "图 1：示意"},
    },
    {
        "type": "table",
        "value": {
            "data": [["格式", "位宽"], ["INT8", None]],
            "cell": [{"row": 0, "col": 0, "className": "htLeft"}],
            "first_row_is_table_header": True,
            "table_caption": "数值格式",
        },
    },
    {
        "type": "callout",
        "value": {"kind": "tip", "title": "提示", "body": "<p>先测带宽</p>"},
    },
    {
        "type": "quote",
        "value": {"quote": "<p>Premature optimization</p>", "source": "Knuth"},
    },
    {"type": "embed", "value": "https://example.com/v"},
    {
        "type": "html_figure",
        "value": {
            "html": "<svg><text>SMEM</text></svg>",
            "height": 120,
            "caption": "示意图",
        },
    },
]


def test_search_text_is_prose_code_tex_and_labels_in_block_order():
    # Rich text loses its tags; the table's caption comes before its cells, a
    # quote's source before the quote; choices, ids, URLs and markup (a Markdown
    # block's fences too) are left out.
    assert body_text(PostBodyBlock().to_python(BODY)) == (
        "共享内存 Bank Conflict 每个 warp 有 32 个线程，$w=32$。 A&B "
        "带宽 $I$ 决定上限。 int x; int y; add.cu int i; i++; "
        "e^{x_i} 2 bank 冲突 图 1：示意 数值格式 格式 位宽 INT8 提示 先测带宽 "
        "Knuth Premature optimization 示意图"
    )


def test_reading_time_counts_prose_code_and_formulas_not_labels():
    # One copy: 36 CJK characters, 12 words (not alt text, an equation's number
    # or inline math), 4 lines of code (2 fenced in the Markdown), 1 formula:
    # 36/400 + 12/220 + 4/30 + 5/60 = 0.361 minutes.
    assert reading_minutes(BODY) == 1
    assert reading_minutes(BODY * 10) == 4  # 3.61
    assert reading_minutes(BODY * 40) == 15  # 14.45


def test_pieces_are_typed_by_the_declaration():
    pieces = [(p.block_type, p.kind, p.text) for p in body_pieces(BODY)]
    assert ("math", Text.TEX, "e^{x_i}") in pieces
    assert ("math", Text.LABEL, "2") in pieces
    assert ("code", Text.CODE, "int i;\n\n  i++;") in pieces
    assert ("paragraph", Text.RICH_TEXT, BODY[1]["value"]) in pieces
    assert not [p for p in pieces if p[0] == "embed"]
    assert "SMEM" not in " ".join(text for *_, text in pieces)


def test_an_empty_formula_still_counts_and_unknown_blocks_are_skipped():
    pieces = list(
        body_pieces(
            [
                {"type": "math", "value": {"tex": "", "label": ""}},
                {"type": "gone", "value": "a block type the body no longer has"},
            ]
        )
    )
    assert [(p.kind, p.text) for p in pieces] == [(Text.TEX, ""), (Text.LABEL, "")]
