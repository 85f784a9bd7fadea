"""Prose comes in as the author's site showed it: emphasis, emoji, footnotes, breaks."""

import textwrap

from vault.importer.blocks import parse_body


def parse(text, **kwargs):
    return parse_body(textwrap.dedent(text).lstrip("\n"), **kwargs)


def values(body, kind):
    return [block.value for block in body.blocks if block.type == kind]


def messages(body):
    return [(issue.message, issue.line) for issue in body.warnings]


def test_bold_next_to_chinese_punctuation_is_bold_in_rich_text():
    body = parse(
        """
        三种角色：**强领导者（Strong Leader）**驱动整个过程，*「跟随者」*复制日志。
        """
    )

    assert values(body, "paragraph") == [
        "<p>三种角色：<b>强领导者（Strong Leader）</b>驱动整个过程，"
        "<i>「跟随者」</i>复制日志。</p>"
    ]


def test_emoji_shortcodes_become_emoji_and_icons_are_dropped_with_a_warning():
    body = parse(
        """
        :warning: 先读这一节 :book:

        收件箱 :fontawesome-solid-inbox: 在右上角，`:rocket:` 不变。
        """
    )

    assert values(body, "paragraph") == [
        "<p>⚠️ 先读这一节 📖</p><p>收件箱  在右上角，<code>:rocket:</code> 不变。</p>"
    ]
    assert messages(body) == [("icon shortcode dropped: :fontawesome-solid-inbox:", 3)]
