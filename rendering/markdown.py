"""Render Markdown with markdown-it-py: math, footnotes, tables, callouts, code.

Raw HTML is escaped (``html=False``) and markdown-it's link validation stays on, so
the output is safe to mark safe. Math goes through KaTeX and fenced code through
Pygments, both on the server. The parser is `parser.new_parser`'s, with callouts,
heading anchors and the render rules here added.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.renderer import RendererHTML
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from .cache import batch, memoize
from .callouts import callout_plugin
from .diagrams import DIAGRAM_LANGUAGE, diagram_frame
from .headings import unique_anchors
from .highlight import code_frame, parse_line_spec
from .math import check_math, prefetch_math, render_math_safe
from .obsidian_comments import COMMENT
from .parser import MATH_TOKENS, fence_language, formulas, new_parser, walk

# An image of the site's media library in Markdown source: ``![alt](image:42)``.
LIBRARY_IMAGE = re.compile(r"image:(\d+)")
_LIBRARY_IMAGE_REF = re.compile(r"\]\(\s*<?image:(\d+)")


def _inline_text(token: Token) -> str:
    """Return the plain text of an inline token (for heading anchors), no comment."""
    children = token.children or ()
    parts = [
        child.content
        for child in children
        if child.type in ("text", "code_inline", "math_inline", "math_inline_double")
    ]
    if parts or any(child.type == COMMENT for child in children):
        return "".join(parts)
    return token.content


def _heading_anchors(state: StateCore) -> None:
    """Give every heading a stable, unique ``id``."""
    tokens = state.tokens
    headings = [
        (token, tokens[index + 1])
        for index, token in enumerate(tokens)
        if token.type == "heading_open"
    ]
    given = state.env.get("anchors")
    if given is not None and len(given) == len(headings):
        anchors = list(given)  # numbered together with the rest of the page
    else:
        anchors = unique_anchors(_inline_text(inline) for _, inline in headings)
    for (heading, _), anchor in zip(headings, anchors, strict=True):
        heading.attrSet("id", anchor)


# ```cuda {2,4-5} title="gemm.cu" linenos=40
_FENCE_LINES = re.compile(r"\{([\d,\s-]+)\}")
_FENCE_TITLE = re.compile(r"""\b(?:title|filename)=(?:"([^"]*)"|'([^']*)'|(\S+))""")
# What turns line numbers off, as the vault importer reads it.
_FENCE_NO_LINENOS = re.compile(
    r"\bnolinenos\b|\b(?:linenos|showLineNumbers|numberLines)\s*=\s*(?:false|0)\b",
    re.I,
)
_FENCE_LINENOS = re.compile(r"\b(?:linenos|showLineNumbers|numberLines)(?:=(\d+))?")


def _render_fence(
    self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any
) -> str:
    """Return a fenced block: ```` ```math ```` as display math, ```` ```mermaid ````
    as a diagram, else highlighted code."""
    token = tokens[idx]
    info = token.info.strip()
    language = fence_language(info)
    if language.lower() == "math":
        return _display_math(token.content, _math_output(env))
    if language.lower() == DIAGRAM_LANGUAGE:
        return diagram_frame(token.content)
    highlight_lines: list[int] = []
    if lines := _FENCE_LINES.search(info):
        try:
            highlight_lines = parse_line_spec(lines.group(1))
        except ValueError:
            highlight_lines = []  # a typo in the info string must not break a post
    title = _FENCE_TITLE.search(info)
    linenos = _FENCE_LINENOS.search(info)
    # The code block's frame, with its default of line numbers on.
    return code_frame(
        token.content,
        language,
        inline_styles=bool(env.get("feed")),
        highlight_lines=highlight_lines,
        line_numbers=_FENCE_NO_LINENOS.search(info) is None,
        start_line=int(linenos.group(1) or 1) if linenos else 1,
        filename=next((g for g in title.groups() if g is not None), "")
        if title
        else "",
    )


def _render_code_block(
    self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any
) -> str:
    """Return an indented code block in the same frame as fenced code."""
    return code_frame(
        tokens[idx].content,
        "text",
        inline_styles=bool(env.get("feed")),
        line_numbers=True,
    )


def _math_output(env: Any) -> str:
    """Return KaTeX's output option: MathML alone in feeds."""
    return "mathml" if env.get("feed") else "htmlAndMathml"


def _display_math(tex: str, output: str = "htmlAndMathml") -> str:
    """Return a display formula in its block wrapper."""
    return f'<div class="math-display">{render_math_safe(tex, True, output)}</div>\n'


def _render_math(
    self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any
) -> str:
    """Return one math token rendered by KaTeX."""
    token = tokens[idx]
    output = _math_output(env)
    if token.type == "math_inline":
        return render_math_safe(token.content, False, output)
    if token.type == "math_inline_double":
        rendered = render_math_safe(token.content, True, output)
        return f'<span class="math-display">{rendered}</span>'
    return _display_math(token.content, output)


def _render_image(
    self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any
) -> str:
    """Return an image loaded lazily; ``image:ID`` takes its library image's URL.

    An ``image:ID`` the page was not given (the image was deleted) shows its alt
    text instead of a broken image.
    """
    token = tokens[idx]
    match = LIBRARY_IMAGE.fullmatch(token.attrGet("src") or "")
    if match is not None:
        found = (env.get("images") or {}).get(match.group(1))
        if found is None:
            alt = self.renderInlineAsText(token.children or [], options, env)
            return f'<span class="image-missing">{escapeHtml(alt)}</span>'
        url, width, height = found
        token.attrSet("src", url)
        if width and height:
            token.attrSet("width", str(width))
            token.attrSet("height", str(height))
    elif (token.attrGet("src") or "").startswith(("https://", "http://", "//")):
        # Image hosts that refuse hotlinks judge by the Referer; send none.
        token.attrSet("referrerpolicy", "no-referrer")
    token.attrSet("loading", "lazy")
    token.attrSet("decoding", "async")
    return RendererHTML.image(self, tokens, idx, options, env)


def library_image_ids(text: str) -> list[int]:
    """Return the ids of the library images ``text`` shows (``![…](image:ID)``)."""
    return sorted({int(found) for found in _LIBRARY_IMAGE_REF.findall(text)})


def _build() -> MarkdownIt:
    """Return the configured parser; built once per process."""
    md = new_parser()
    md.use(callout_plugin)
    md.core.ruler.after("attr_lists", "heading_anchors", _heading_anchors)
    for name in MATH_TOKENS:
        md.add_render_rule(name, _render_math)
    md.add_render_rule("fence", _render_fence)
    md.add_render_rule("code_block", _render_code_block)
    md.add_render_rule("image", _render_image)
    md.parse("warm *up* the [rule](caches)")  # compile rule chains before threads
    return md


_md = _build()


@memoize("markdown")
def render_markdown(
    text: str,
    *,
    doc_id: str = "",
    anchors: Sequence[str] | None = None,
    feed: bool = False,
    images: Mapping[str, tuple[str, int, int]] | None = None,
) -> str:
    """Return ``text`` rendered as safe HTML.

    ``doc_id`` prefixes footnote ids, for pages holding several Markdown blocks.
    ``anchors`` are the ids of the text's headings, in order, when the page
    numbers them together with its other headings (see `markdown_headings`).
    ``feed`` renders for feed readers: math as MathML only, code with inline
    styles. ``images`` gives (url, width, height) for each library image the
    text shows, by id as a string (see `library_image_ids`).
    """
    env: dict = {"docId": doc_id} if doc_id else {}
    if images:
        env["images"] = images
    if feed:
        env["feed"] = True
    if anchors is not None:
        env["anchors"] = list(anchors)
    tokens = _md.parse(text, env)
    with batch():
        prefetch_math(formulas(tokens), _math_output(env))
        return _md.renderer.render(tokens, _md.options, env)


@memoize("markdown-headings")
def _heading_lines(text: str) -> str:
    lines = []
    tokens = _md.parse(text)
    for index, token in enumerate(tokens):
        if token.type == "heading_open":
            text_of = " ".join(_inline_text(tokens[index + 1]).split())
            lines.append(f"{token.tag}\t{text_of}")
    return "\n".join(lines)


def markdown_headings(text: str) -> list[tuple[str, str]]:
    """Return (tag, text) for every heading in ``text``, in order."""
    lines = _heading_lines(text)
    return [tuple(line.split("\t", 1)) for line in lines.splitlines()] if lines else []


def markdown_formulas(text: str) -> list[tuple[str, bool]]:
    """Return ``(tex, display)`` for every formula in Markdown ``text``, in order."""
    return list(formulas(_md.parse(text)))


def markdown_passages(text: str) -> list[list[tuple[str, str]]]:
    """Return the text of Markdown ``text`` as passages, for search snippets.

    A passage is a paragraph, heading, list item or table cell as
    ``("text", literal)`` and ``("math", tex)`` pieces (inline math only, markup
    dropped), or a code block as one text piece. Display math is left out.
    """
    passages: list[list[tuple[str, str]]] = []
    for token in _md.parse(text):
        if token.type == "inline":
            pieces: list[tuple[str, str]] = []
            for child in walk(token.children or []):
                if child.type in ("text", "code_inline"):
                    pieces.append(("text", child.content))
                elif child.type in ("softbreak", "hardbreak"):
                    pieces.append(("text", " "))
                elif MATH_TOKENS.get(child.type) is False:
                    pieces.append(("math", child.content))
            if pieces:
                passages.append(pieces)
        elif (
            token.type in ("fence", "code_block")
            and token.content.strip()
            and fence_language(token.info).lower() != "math"
        ):
            passages.append([("text", token.content)])
    return passages


@memoize("markdown-text")
def markdown_text(text: str) -> str:
    """Return the text Markdown ``text`` shows: prose, code and TeX, for search.

    No markup, and nothing of its ``%%comments%%``, which readers never see.
    """
    parts = []
    for token in walk(_md.parse(text)):
        if token.type in ("text", "code_inline", "fence", "code_block"):
            parts.append(token.content)
        elif token.type == "math_inline":
            parts.append(f"${token.content}$")  # as rich text's inline math reads
        elif token.type in MATH_TOKENS:
            parts.append(token.content)
        elif token.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return " ".join(" ".join(parts).split())


def markdown_links(text: str) -> list[tuple[str, str]]:
    """Return ``(href, text)`` for every link in Markdown ``text``, in order."""
    links = []
    for token in walk(_md.parse(text)):
        if not token.children:
            continue
        opened: list[tuple[str, list[str]]] = []
        for child in token.children:
            if child.type == "link_open":
                opened.append((str(child.attrGet("href") or ""), []))
            elif child.type == "link_close" and opened:
                href, words = opened.pop()
                links.append((href, "".join(words).strip()))
            elif opened and child.type in ("text", "code_inline"):
                opened[-1][1].append(child.content)
    return links


def markdown_math_errors(text: str) -> list[str]:
    """Return KaTeX's message for every invalid formula in ``text``, in order.

    Kept by text: a save of a long derivation checks again only the blocks
    that changed, and in those reads the formulas' renders in one round trip.
    """
    return json.loads(_math_errors(text))


@memoize("markdown-math-errors")
def _math_errors(text: str) -> str:
    formulas = markdown_formulas(text)
    with batch():
        prefetch_math(formulas)
        messages = [
            message
            for tex, display in formulas
            if (message := check_math(tex, display)) is not None
        ]
    return json.dumps(messages, ensure_ascii=False)
