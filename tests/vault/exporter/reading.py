"""Reading Markdown back, as an importer would, to check what the export says.

CommonMark with strikethrough, ==highlights== and %%comments%%, inline HTML (<sup>, <sub>), dollar and bracket
math like rendering, formulas kept as their source and "\\$" kept as "\\$":
independent of vault.importer.
"""

import html
import re
from urllib.parse import unquote

from markdown_it import MarkdownIt

from rendering.marks import mark_plugin
from rendering.math_syntax import math_plugin
from rendering.obsidian_comments import comment_plugin
from vault.exporter.richtext import (
    OfflineResolver,
    parse_html,
    rich_text_to_markdown,
)


def _reader() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": True}).enable("strikethrough")
    md.use(math_plugin, blocks=False)
    md.use(mark_plugin)
    md.use(comment_plugin)
    md.disable("text_join")  # keep escapes apart, to tell "\$" from "$"

    def math(self, tokens, idx, options, env):
        token = tokens[idx]
        closer = "\\)" if token.markup == "\\(" else token.markup
        return html.escape(token.markup + token.content + closer, quote=False)

    def special(self, tokens, idx, options, env):
        token = tokens[idx]
        if token.info == "escape" and token.content == "$":
            return "\\$"
        return html.escape(token.content, quote=False)

    for name in ("math_inline", "math_inline_double"):
        md.add_render_rule(name, math)
    md.add_render_rule("text_special", special)
    return md


READER = _reader()

_TAGS = {"strong": "b", "em": "i", "del": "s", "strike": "s"}


def canonical_html(markup: str, page_url=None, page_href=None) -> str:
    """Return rich text with what may differ and mean the same normalised away.

    Tag spellings (strong/b…), block keys, whitespace and empty paragraphs;
    page links become their target's URL path (``page_url``).
    """

    def walk(node) -> str:
        if isinstance(node, str):
            return html.escape(node, quote=False)
        tag = _TAGS.get(node.tag, node.tag)
        inner = "".join(walk(child) for child in node.children)
        if tag in ("span", "root"):
            return inner
        if tag == "br":
            return "<br>"
        if tag == "p" and not inner.strip():
            return ""
        attrs = ""
        if tag == "a":
            if node.attrs.get("linktype") == "page" and page_href:
                # As the exporter wrote it, and Markdown reads it: a plain link.
                attrs = f' href="{page_href(int(node.attrs["id"]))}"'
            elif node.attrs.get("linktype") == "page":
                target = page_url(int(node.attrs["id"])) if page_url else None
                attrs = f' page="{target}"'
            else:
                attrs = f' href="{unquote(node.attrs.get("href", ""))}"'
        return f"<{tag}{attrs}>{inner}</{tag}>"

    text = re.sub(r"\s+", " ", walk(parse_html(markup or "")))
    return re.sub(r"\s*(</?(?:p|ul|ol|li)>|<br>)\s*", r"\1", text).strip()


def read_prose(markdown: str) -> str:
    return canonical_html(READER.render(markdown))


def assert_reads_back(rich_text: str, resolver=None) -> str:
    resolver = resolver or OfflineResolver()
    markdown = rich_text_to_markdown(rich_text, resolver)
    expected = canonical_html(rich_text, page_href=resolver.page_href)
    assert read_prose(markdown) == expected, markdown
    return markdown


def md(rich_text: str, resolver=None) -> str:
    return rich_text_to_markdown(rich_text, resolver or OfflineResolver())
