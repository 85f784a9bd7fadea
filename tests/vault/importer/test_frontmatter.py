"""Front matter as real vaults write it; no database needed."""

import datetime
import time
import tracemalloc

import pytest

from vault.importer.frontmatter import (
    FrontMatterError,
    parse_date,
    parse_tags,
    split_document,
)


def test_reads_the_keys_and_their_aliases():
    doc = split_document(
        "---\n"
        "title: Roofline\n"
        "created: 2026-08-05\n"
        "lastmod: 2026-08-07\n"
        "description: 一句话摘要\n"
        "image: images/cover.png\n"
        "aliases: [old-roofline, /legacy/roofline]\n"
        "slug: roofline-model\n"
        "draft: yes\n"
        "comments: false\n"
        "order: 3\n"
        "ordering: Newest\n"
        "---\n"
        "Body\n"
    )
    front = doc.front
    assert front.title == "Roofline"
    assert front.date == datetime.date(2026, 8, 5)
    assert front.updated == datetime.date(2026, 8, 7)
    assert front.summary == "一句话摘要"
    assert front.cover == "images/cover.png"
    assert front.aliases == ["old-roofline", "/legacy/roofline"]
    assert front.slug == "roofline-model"
    assert front.draft is True
    assert front.comments is False
    assert front.weight == 3
    assert front.ordering == "newest"
    assert doc.body == "Body\n"
    assert doc.body_line == 14
    assert doc.warnings == []


def test_an_unquoted_colon_in_the_title_is_recovered_with_a_warning():
    doc = split_document(
        "---\ntitle: CUDA: 共享内存\ndate: 2026-8-5\ntags:\n  - CUDA\n---\nBody\n"
    )
    assert doc.front.title == "CUDA: 共享内存"
    assert doc.front.date == datetime.date(2026, 8, 5)
    assert doc.front.tags == ["CUDA"]
    [warning] = doc.warnings
    assert warning.line == 2
    assert "not valid YAML" in warning.message
    assert "line by line" in warning.message


def test_blank_lines_inside_the_block_are_fine():
    doc = split_document(
        "---\n\ntitle: 链接\ncreated: 2023-09-18\ntags:\n\n- System Arch\n\n---\n\n# H\n"
    )
    assert doc.front.title == "链接"
    assert doc.front.date == datetime.date(2023, 9, 18)
    assert doc.front.tags == ["System Arch"]
    assert doc.warnings == []
    assert doc.body_line == 10


def test_a_file_without_front_matter_is_all_body():
    doc = split_document("# Title\n\ntext\n")
    assert not doc.front.present
    assert doc.front.title == ""
    assert doc.body == "# Title\n\ntext\n"
    assert doc.body_line == 1


def test_a_stray_line_is_dropped_with_a_warning_and_the_keys_are_kept():
    doc = split_document(
        "---\n"
        "title: 共享内存\n"
        "Notes I meant to put in the body\n"
        ": half a key\n"
        "date: 2024-03-05\n"
        "---\n"
        "Body\n"
    )
    assert doc.front.title == "共享内存"
    assert doc.front.date == datetime.date(2024, 3, 5)
    assert doc.body == "Body\n"
    assert [(w.line, w.message) for w in doc.warnings[1:]] == [
        (
            3,
            "front matter line dropped, not key: value: 'Notes I meant to put in the body'",
        ),
        (4, "front matter line dropped, not key: value: ': half a key'"),
    ]
    assert "not valid YAML" in doc.warnings[0].message


@pytest.mark.parametrize("indent", ["", "  "])
def test_list_items_escaped_by_a_converter_are_read_as_items(indent):
    doc = split_document(
        f"---\ntitle: T\ntags:\n{indent}\\- CUDA\n{indent}\\- GEMM\n---\nBody\n"
    )
    assert doc.front.title == "T"
    assert doc.front.tags == ["CUDA", "GEMM"]
    assert [(w.line, w.message) for w in doc.warnings] == [
        (4, "front matter line read as a list item: '\\- CUDA'")
    ]


@pytest.mark.parametrize(
    "text, warning",
    [
        (
            "---\ntitle: never closed\n\nbody\n",
            "front matter opened with --- is never closed; "
            "the whole file is read as body",
        ),
        (
            "---\n- a\n- list\n---\nbody",
            "front matter holds no key: value line; the whole file is read as body",
        ),
        (
            "---\nJust a sentence between two rules\n---\nbody",
            "front matter holds no key: value line; the whole file is read as body",
        ),
    ],
)
def test_a_block_that_is_not_front_matter_is_read_as_body(text, warning):
    doc = split_document(text)
    assert not doc.front.present
    assert doc.body == text
    assert doc.body_line == 1
    assert [(w.line, w.message) for w in doc.warnings] == [(1, warning)]


def test_invalid_toml_keeps_the_lines_that_parse():
    doc = split_document(
        '+++\ntitle = "Hugo"\ntags = ["gpu"]\nthis is not toml\n'
        "date = 2024-01-02\n[params]\ntitle = 'not the title'\n+++\nbody"
    )
    assert doc.front.title == "Hugo"
    assert doc.front.tags == ["gpu"]
    assert doc.front.date == datetime.date(2024, 1, 2)
    assert "not valid TOML" in doc.warnings[0].message
    assert [(w.line, w.message) for w in doc.warnings[1:]] == [
        (4, "front matter line dropped, not key: value: 'this is not toml'")
    ]


def billion_laughs(levels: int = 9) -> str:
    """Return a YAML block of anchors, each alias repeated nine times per level."""
    lines = ['lol0: &lol0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for n in range(1, levels + 1):
        lines.append(f"lol{n}: &lol{n} [" + ", ".join([f"*lol{n - 1}"] * 9) + "]")
    return "\n".join(lines)


@pytest.mark.parametrize(
    "bomb, reason",
    [
        (
            billion_laughs() + "\ntitle: *lol9",
            "YAML aliases expand to more than 10,000 values",
        ),
        (
            billion_laughs(6) + "\ntags: [*lol6, *lol6]",
            "YAML aliases expand to more than 10,000 values",
        ),
        ("loop: &me [*me]\ntitle: *me", "a YAML alias refers to itself"),
    ],
)
def test_yaml_aliases_that_expand_too_far_are_refused_before_expanding(bomb, reason):
    text = f"---\n{bomb}\ndate: 2024-02-03\n---\nBody\n"
    assert len(text) < 1500
    tracemalloc.start()
    started = time.perf_counter()
    try:
        doc = split_document(text)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - started < 2
    assert peak < 20_000_000
    assert doc.front.date == datetime.date(2024, 2, 3)
    assert doc.body == "Body\n"
    assert doc.warnings[0].message.startswith(
        f"front matter YAML aliases refused ({reason}); read "
    )
    assert len(str(doc.front)) < 2000


def test_ordinary_anchors_and_merge_keys_still_work():
    doc = split_document(
        "---\nbase: &base\n  draft: true\npost:\n  <<: *base\n"
        "title: Anchors\ntags: &t [cuda, gemm]\naliases: *t\n---\n"
    )
    assert doc.front.title == "Anchors"
    assert doc.front.aliases == ["cuda", "gemm"]
    assert doc.warnings == []


def test_a_bad_date_is_a_warning_not_a_failure():
    doc = split_document("---\ntitle: t\ndate: someday\n---\n")
    assert doc.front.date is None
    assert "cannot read 'someday' as a date" in doc.warnings[0].message


@pytest.mark.parametrize(
    "written",
    [
        "2026-02-30",
        "0000-00-00",
        "2026-13-01",
        "'2026-02-30'",
        "2026-02-30T10:00:00",
    ],
)
def test_an_impossible_date_is_a_warning_naming_it(written):
    doc = split_document(f"---\ntitle: t\ndate: {written}\nupdated: {written}\n---\n")
    assert doc.front.title == "t"
    assert doc.front.date is None and doc.front.updated is None
    shown = written.strip("'")
    assert [w.message for w in doc.warnings] == [
        f"date: cannot read '{shown}' as a date; the file's own date is used",
        f"updated: cannot read '{shown}' as a date; the file's own date is used",
    ]


def test_a_date_with_an_impossible_time_keeps_its_day():
    doc = split_document("---\ntitle: t\ndate: 2026-01-01 25:99\n---\n")
    assert doc.front.date == datetime.date(2026, 1, 1)


@pytest.mark.parametrize(
    "text",
    [
        "---\ntitle: t\nx: " + "[" * 10000 + "\n---\nbody",
        "---\ntitle: t\nx: " + "{a: " * 10000 + "\n---\nbody",
        '+++\ntitle = "t"\nx = ' + "[" * 10000 + "\n+++\nbody",
    ],
)
def test_front_matter_nested_too_deeply_fails_the_file_with_a_message(text):
    with pytest.raises(FrontMatterError) as error:
        split_document(text)
    assert "nested too deeply" in error.value.issue.message


@pytest.mark.parametrize(
    "value, expected",
    [
        (["CUDA", "cuda", "GPU"], ["CUDA", "GPU"]),
        ("cuda, Warp, #shuffle", ["cuda", "Warp", "shuffle"]),
        ("#单个标签", ["单个标签"]),
        ([None, "", " a  b "], ["a b"]),
        (None, []),
    ],
)
def test_tags_come_as_a_list_or_a_comma_string_case_insensitively(value, expected):
    assert parse_tags(value) == expected


@pytest.mark.parametrize(
    "value, expected",
    [
        ("2026-8-5", datetime.date(2026, 8, 5)),
        ("2025-12-8", datetime.date(2025, 12, 8)),
        ("2026/08/05 10:30", datetime.date(2026, 8, 5)),
        (datetime.datetime(2026, 8, 5, 23, 0), datetime.date(2026, 8, 5)),
    ],
)
def test_dates_may_be_unpadded_or_have_a_time(value, expected):
    assert parse_date(value) == expected


def test_toml_front_matter_is_read_too():
    doc = split_document('+++\ntitle = "Hugo"\ntags = ["a"]\n+++\nbody')
    assert doc.front.title == "Hugo"
    assert doc.front.tags == ["a"]


def test_an_escaped_item_below_a_key_with_a_value_is_dropped_not_swallowed():
    doc = split_document(
        "---\ntitle: 坏的头部\ntags: [notes]\n\\- 这一行不是键值\n---\n正文\n"
    )
    assert doc.front.title == "坏的头部"
    assert doc.front.tags == ["notes"]
    assert doc.body == "正文\n"
    assert [(w.line, w.message) for w in doc.warnings[1:]] == [
        (4, "front matter line dropped, not key: value: '\\- 这一行不是键值'")
    ]
