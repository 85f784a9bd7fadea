"""Prose the importer reads specially is written so that it reads back the same."""

from tests.vault.exporter.reading import assert_reads_back


def test_literal_shortcodes_are_escaped_so_they_stay_text():
    markdown = assert_reads_back(
        "<p>写法 :warning: 与 :fontawesome-solid-inbox: 原样，"
        "12:30:45 和 :not_an_emoji: 不变，⚠️ 照旧</p>"
    )

    assert markdown == (
        "写法 \\:warning: 与 \\:fontawesome-solid-inbox: 原样，"
        "12:30:45 和 :not_an_emoji: 不变，⚠️ 照旧"
    )


def test_line_breaks_are_written_as_hard_breaks():
    markdown = assert_reads_back("<p>笔记本<br/>充电器<br/><b>雨伞</b></p>")

    assert markdown == "笔记本\\\n充电器\\\n**雨伞**"


def test_bold_next_to_chinese_punctuation_reads_back_bold():
    assert_reads_back("<p>三种角色：<b>强领导者（Strong Leader）</b>驱动。</p>")
