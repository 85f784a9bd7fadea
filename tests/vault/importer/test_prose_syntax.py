"""Prose comes in as the author's site showed it: emphasis, emoji, footnotes, breaks."""

import re
import shutil
import textwrap
from io import StringIO

import pytest
from bs4 import BeautifulSoup
from django.core.management import call_command

from blog.blocks.code import CodeBlock
from blog.blocks.prose import HeadingBlock
from blog.models import ArchivePage, PostPage, TagIndexPage
from rendering import render_markdown
from tests.vault.importer.conftest import FIXTURES
from vault.importer.body import parse_body


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


# Line breaks ---------------------------------------------------------------


def copy_fixture(name, tmp_path):
    root = tmp_path / name
    shutil.copytree(FIXTURES / name, root)
    return root


def post_body(source_path):
    return PostPage.objects.get(source_path=source_path).body


def body_values(source_path):
    """Return (type, value) per block; runs of whitespace count as one space."""
    return [
        (
            block.block_type,
            " ".join(str(block.block.get_prep_value(block.value)).split()),
        )
        for block in post_body(source_path)
    ]


def rendered(source_path):
    page = PostPage.objects.get(source_path=source_path)
    html = "".join(str(block.render(context={"page": page})) for block in page.body)
    return BeautifulSoup(html, "html.parser")


def lines_of(element):
    """Return the text of ``element`` split at its <br> elements."""
    for br in element.find_all("br"):
        br.replace_with("\x00")
    lines = [" ".join(line.split()) for line in element.get_text().split("\x00")]
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return lines


@pytest.mark.django_db
def test_an_obsidian_vault_keeps_single_newlines_as_line_breaks(run_import, tmp_path):
    vault = copy_fixture("obsidian", tmp_path)

    result = run_import(vault)

    assert result.error is None, result.out
    assert (
        "Line breaks: on (Obsidian vault, strict line breaks off); a single "
        "newline in a paragraph is a line break." in result.out
    )
    soup = rendered("读书/清单.md")
    paragraphs = soup.find_all("p")
    assert lines_of(paragraphs[0]) == [
        "要带的东西：",
        "笔记本",
        "充电器",
        "雨伞（可能下雨）",
    ]
    assert paragraphs[0].find("strong") or paragraphs[0].find("b")
    items = soup.find("ul").find_all("li")
    assert lines_of(items[0]) == [
        "周一",
        "复习 CUDA 的 warp 调度",
        "写完 GEMM 的 tiling",
    ]
    assert lines_of(soup.find("blockquote")) == ["慢慢来，", "比较快。"]
    # A newline inside code or math is no line break.
    code_line = next(p for p in paragraphs if p.find("code"))
    assert code_line.find("code").get_text() == "a b"
    assert not code_line.find("br")


@pytest.mark.django_db
def test_a_markdown_block_keeps_the_breaks_with_hard_break_syntax(run_import, tmp_path):
    vault = copy_fixture("obsidian", tmp_path)

    run_import(vault)

    sources = [b.value for b in post_body("读书/清单.md") if b.block_type == "markdown"]
    assert sources == [
        "带脚注的一行[^1]\\\n和它的下一行。\n\n[^1]: 脚注第一行\\\n    脚注第二行"
    ]
    block = rendered("读书/清单.md").find(class_="footnotes").parent
    assert lines_of(block.find("p")) == ["带脚注的一行[1]", "和它的下一行。"]
    assert lines_of(block.find(class_="footnotes").find("p")) == [
        "脚注第一行",
        "脚注第二行 ↩︎",
    ]


@pytest.mark.django_db
def test_strict_line_breaks_or_no_breaks_join_the_lines(run_import, tmp_path):
    vault = copy_fixture("obsidian", tmp_path)
    (vault / ".obsidian" / "app.json").write_text('{"strictLineBreaks": true}')

    result = run_import(vault)

    assert "Line breaks: off (Obsidian vault, strictLineBreaks on)" in result.out
    assert not rendered("读书/清单.md").find("p").find("br")

    result = run_import(vault, "--breaks")
    assert "Line breaks: on (--breaks)" in result.out
    assert re.search(r"^updated +1 ", result.out, re.M)  # the option changes the page
    assert rendered("读书/清单.md").find("p").find("br")


@pytest.mark.django_db
def test_mkdocs_nl2br_turns_line_breaks_on(run_import, tmp_path):
    site = copy_fixture("mkdocs-site", tmp_path)

    result = run_import(site / "docs")

    assert result.error is None, result.out
    assert "Line breaks: on (mkdocs.yml enables nl2br)" in result.out
    assert lines_of(rendered("poem.md").find("p")) == [
        "床前明月光",
        "疑是地上霜",
        "举头望明月",
        "低头思故乡",
    ]


@pytest.mark.django_db
def test_mkdocs_without_nl2br_and_a_plain_folder_join_the_lines(run_import, tmp_path):
    site = copy_fixture("mkdocs-site", tmp_path)
    config = site / "mkdocs.yml"
    config.write_text(config.read_text().replace("  - nl2br\n", ""))

    result = run_import(site / "docs")

    assert "Line breaks: off (mkdocs.yml does not enable nl2br)" in result.out
    assert not rendered("poem.md").find("p").find("br")
    config.unlink()
    result = run_import(site / "docs", "--dry-run")
    assert "Line breaks: off (no .obsidian/ or mkdocs.yml: CommonMark)" in result.out


@pytest.mark.django_db
@pytest.mark.parametrize("option", ["--breaks", "--no-breaks"])
def test_line_breaks_survive_export_and_import_whatever_the_option(
    run_import, tmp_path, home, option
):
    vault = copy_fixture("obsidian", tmp_path)
    run_import(vault)
    before = body_values("读书/清单.md")
    out = tmp_path / "export"
    call_command("export_markdown", str(out), stdout=StringIO())
    for page in home.get_children():
        if not isinstance(page.specific, TagIndexPage | ArchivePage):
            page.delete()

    result = run_import(out, option)

    assert result.error is None, result.out
    after = body_values("读书/清单.md")
    assert after == before
    assert any("<br/>" in str(value) for _, value in after)


# Footnotes -----------------------------------------------------------------


NOTES = """
    ## 背景[^paper]

    正文引用[^body]，再引用一次标题里的[^shared]。

    ### 方法 **A**[^method] 与 B[^shared]

    用了 DDP[^ddp]。

    [^paper]: 来自 2019 年的论文。
    [^body]: 正文的脚注。
    [^shared]: 标题和正文共用。
    [^method]: 方法的 **出处**，见
        第二段。
    [^ddp]:
    """


def test_a_footnote_in_a_heading_keeps_a_marker_and_its_note_follows_the_body():
    body = parse(NOTES)

    assert values(body, "heading") == [
        {"text": "背景[paper]", "level": "h2"},
        {"text": "方法 A[method] 与 B[shared]", "level": "h3"},
    ]
    # Notes only headings refer to come after the body, in heading order.
    assert body.blocks[-1].type == "paragraph"
    assert body.blocks[-1].value == (
        "<p>[paper] 来自 2019 年的论文。</p><p>[method] 方法的 <b>出处</b>，见\n第二段。</p>"
    )


def test_every_footnote_reference_and_definition_survives():
    body = parse(NOTES)

    markdown = values(body, "markdown")
    assert markdown[0] == (
        "正文引用[^body]，再引用一次标题里的[^shared]。\n\n"
        "[^body]: 正文的脚注。\n\n[^shared]: 标题和正文共用。"
    )
    # An empty definition is kept, so the reference renders as a footnote.
    assert markdown[1] == "用了 DDP[^ddp]。\n\n[^ddp]:"
    html = render_markdown(markdown[1])
    assert "[^ddp]" not in html and 'class="footnote-ref"' in html
    assert messages(body) == [("footnote [^ddp] has an empty definition", 7)]


def test_a_reference_without_any_definition_is_named_in_a_warning():
    body = parse("见注释[^missing]，代码 `[^x]` 不算。\n")

    assert messages(body) == [
        ("footnote [^missing] has no definition; kept as text", 1)
    ]


# Headings and code languages ------------------------------------------------


def test_a_long_heading_is_kept_whole():
    heading = (
        "为什么 " + "共享内存的 bank conflict 会让吞吐下降，" * 12 + "以及如何避免"
    )
    body = parse(f"## {heading}\n\n正文。\n")

    assert values(body, "heading") == [{"text": heading, "level": "h2"}]
    assert len(heading) > 255
    assert body.warnings == []
    block = HeadingBlock()
    value = block.clean(block.to_python(values(body, "heading")[0]))
    anchor = BeautifulSoup(block.render(value), "html.parser").find("h2")["id"]
    assert len(anchor) <= 80 and heading.startswith("为什么 ")


def test_a_heading_beyond_the_limit_becomes_a_bold_paragraph_with_a_warning():
    text = "很长" * 600
    body = parse(f"### {text}\n")

    assert values(body, "paragraph") == [f"<p><b>{text}</b></p>"]
    assert messages(body) == [
        ("heading longer than 1000 characters; imported as a bold paragraph", 1)
    ]


def test_any_language_pygments_knows_is_kept_and_highlighted():
    body = parse(
        """
        ```cypher
        MATCH (n:Paper)-[:CITES]->(m) RETURN m
        ```

        ```Thrift title="user.thrift"
        struct User { 1: string name }
        ```

        ```klingon
        nuq
        ```
        """
    )

    languages = [value["language"] for value in values(body, "code")]
    assert languages == ["cypher", "thrift", "text"]
    assert messages(body) == [("unknown code language 'klingon'; imported as text", 9)]
    block = CodeBlock()
    value = block.clean(block.to_python(values(body, "code")[0]))
    html = str(block.render(value))
    assert 'class="language-cypher"' in html
    assert BeautifulSoup(html, "html.parser").select("code span.k")
