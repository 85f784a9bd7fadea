"""Render Markdown with markdown-it-py: math, footnotes, tables, callouts, code.

Raw HTML is escaped (``html=False``) and markdown-it's link validation stays on, so
the output is safe to mark safe. Math goes through KaTeX and fenced code through
Pygments, both on the server.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.renderer import RendererHTML
from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from mdit_py_plugins.amsmath import RE_OPEN as AMSMATH_OPEN
from mdit_py_plugins.amsmath import amsmath_block, amsmath_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.footnote import footnote_plugin

from .cache import batch, memoize
from .cjk import cjk_emphasis_plugin
from .diagrams import DIAGRAM_LANGUAGE, diagram_frame
from .headings import unique_anchors
from .highlight import code_frame, parse_line_spec
from .marks import mark_plugin
from .math import check_math, prefetch_math, render_math_safe
from .mkdocs import mkdocs_plugin
from .obsidian_comments import COMMENT, comment_plugin
from .shortcodes import emoji_plugin

# Canonical callout types, then what Obsidian and GitHub also accept.
CALLOUT_TYPES: dict[str, str] = {
    "note": "note",
    "tip": "tip",
    "info": "info",
    "warning": "warning",
    "danger": "danger",
    "important": "info",
    "caution": "warning",
    "attention": "warning",
    "error": "danger",
    "failure": "danger",
    "fail": "danger",
    "missing": "danger",
    "bug": "danger",
    "hint": "tip",
    "success": "tip",
    "check": "tip",
    "done": "tip",
    "abstract": "info",
    "summary": "info",
    "tldr": "info",
    "question": "info",
    "help": "info",
    "faq": "info",
    "todo": "note",
    "example": "note",
    "quote": "note",
    "cite": "note",
}

# Math token types -> display mode. math_inline_double is $$…$$ inside a
# paragraph (and \[…\] inside one): display style, in a <span> to stay valid HTML.
_MATH_TOKENS = {
    "math_inline": False,
    "math_inline_double": True,
    "math_block": True,
    "amsmath": True,
}

# An image of the site's media library in Markdown source: ``![alt](image:42)``.
LIBRARY_IMAGE = re.compile(r"image:(\d+)")
_LIBRARY_IMAGE_REF = re.compile(r"\]\(\s*<?image:(\d+)")
# How deep blocks may nest (each list is two levels, list and item; each quote
# one). markdown-it's own default of 20 drops whatever is deeper, and the rest
# of the document with it; the importer refuses a file nested deeper than its
# limit (at most this) rather than lose text.
MAX_NESTING = 100
# How deep inline markup nests: markdown-it's default. Each level multiplies
# the work of an unclosed `[` (link labels are tried at every depth).
INLINE_MAX_NESTING = 20

_CALLOUT_MARKER = re.compile(r"\[!([A-Za-z]+)\]([-+]?)(?:[ \t]+(.*))?")


def _new_token(type_: str, tag: str, nesting: int, level: int) -> Token:
    """Return a block token for the callout title."""
    token = Token(type_, tag, nesting)  # type: ignore[arg-type]
    token.block = True
    token.level = level
    return token


def _callouts(state: StateCore) -> None:
    """Turn blockquotes opening with ``[!TYPE] title`` into callout tokens."""
    tokens = state.tokens
    i = 0
    while i < len(tokens) - 2:
        opening = tokens[i]
        paragraph, inline = tokens[i + 1], tokens[i + 2]
        if not (
            opening.type == "blockquote_open"
            and paragraph.type == "paragraph_open"
            and inline.type == "inline"
        ):
            i += 1
            continue
        first_line, _, rest = inline.content.partition("\n")
        match = _CALLOUT_MARKER.fullmatch(first_line.strip())
        kind = CALLOUT_TYPES.get(match.group(1).lower()) if match else None
        if match is None or kind is None:
            i += 1
            continue
        written = match.group(1).lower()
        title_text = (match.group(3) or "").strip() or written.capitalize()

        opening.type, opening.tag = "callout_open", "aside"
        opening.attrSet("class", f"callout callout-{kind}")
        opening.meta = {"kind": kind, "fold": match.group(2)}
        for closing in tokens[i + 1 :]:
            if closing.type == "blockquote_close" and closing.level == opening.level:
                closing.type, closing.tag = "callout_close", "aside"
                break

        level = paragraph.level
        title_open = _new_token("paragraph_open", "p", 1, level)
        title_open.attrSet("class", "callout-title")
        title_open.map = paragraph.map
        title = _new_token("inline", "", 0, level + 1)
        title.content, title.children, title.map = title_text, [], paragraph.map
        title_close = _new_token("paragraph_close", "p", -1, level)

        if rest.strip():
            inline.content = rest
            tokens[i + 1 : i + 1] = [title_open, title, title_close]
        else:  # the marker line was the whole first paragraph
            tokens[i + 1 : i + 4] = [title_open, title, title_close]
        i += 4


def _admonitions(state: StateCore) -> None:
    """Turn MkDocs admonitions (``!!! note "Title"``, ``??? tip``) into callouts.

    An unknown type is a note; ``!!! note ""`` has no title bar; a collapsible
    one is shown open, as the ``-``/``+`` fold of a ``> [!NOTE]`` is.
    """
    for token in state.tokens:
        if token.type in ("admonition_open", "admonition_close"):
            kind = CALLOUT_TYPES.get(token.meta.get("tag", ""), "note")
            token.tag = "aside"
            if token.type == "admonition_open":
                token.type = "callout_open"
                token.attrs = {"class": f"callout callout-{kind}"}
            else:
                token.type = "callout_close"
        elif token.type == "admonition_title_open":
            token.type, token.attrs = "paragraph_open", {"class": "callout-title"}
        elif token.type == "admonition_title_close":
            token.type = "paragraph_close"


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


def _scan_closer(state: StateInline, pos: int, closer: str) -> int:
    """Return where ``closer`` starts in the inline source, skipping escapes, or -1.

    The walk's next step depends only on the position, so each position's answer
    is remembered on ``state``: every opener of a paragraph together walks the
    source once (``\\[`` repeated ten thousand times stays linear).
    """
    src, end = state.src, state.posMax
    # A link's label is parsed on the same state with a shorter posMax.
    memos = state.__dict__.setdefault("math_closers", {})
    memo = memos.setdefault((closer, end), {})
    walked = []
    while True:
        if pos in memo:
            found = memo[pos]
            break
        if pos >= end - 1:
            found = -1
            break
        walked.append(pos)
        if src.startswith(closer, pos):
            found = pos
            break
        pos += 2 if src[pos] == "\\" else 1
    for walked_pos in walked:
        memo[walked_pos] = found
    return found


def _bracket_math_inline(state: StateInline, silent: bool) -> bool:
    """Parse ``\\(…\\)`` (inline) and ``\\[…\\]`` inside a paragraph (display)."""
    src, pos = state.src, state.pos
    if src[pos] != "\\" or pos + 1 >= state.posMax or src[pos + 1] not in "([":
        return False
    closer = "\\)" if src[pos + 1] == "(" else "\\]"
    close = _scan_closer(state, pos + 2, closer)
    if close == -1 or not src[pos + 2 : close].strip():
        return False
    if not silent:
        kind = "math_inline" if closer == "\\)" else "math_inline_double"
        token = state.push(kind, "math", 0)
        token.content = src[pos + 2 : close]
        token.markup = src[pos : pos + 2]
    state.pos = close + 2
    return True


def _display_end(state: StateBlock, line: int, end_line: int) -> int:
    """Return the first line from ``line`` on that ends with ``\\]``, or -1.

    -1 when a blank line or ``end_line`` comes first (TeX display math holds
    no blank line). Each line's answer is remembered on ``state`` for its
    container, so many openers without a closer cost linear time.
    """
    context = (state.level, state.parentType, state.blkIndent, end_line)
    memo = state.__dict__.setdefault("display_ends", {}).setdefault(context, {})
    walked = []
    while True:
        if line in memo:
            found = memo[line]
            break
        if line >= end_line:
            found = -1
            break
        walked.append(line)
        text = state.src[state.bMarks[line] : state.eMarks[line]].rstrip()
        if not text.strip():
            found = -1
            break
        if text.endswith("\\]"):
            found = line
            break
        line += 1
    for walked_line in walked:
        memo[walked_line] = found
    return found


def _bracket_math_block(
    state: StateBlock, start_line: int, end_line: int, silent: bool
) -> bool:
    """Parse a ``\\[…\\]`` display formula starting a block (one line or more)."""
    if state.is_code_block(start_line):
        return False
    begin = state.bMarks[start_line] + state.tShift[start_line]
    first = state.src[begin : state.eMarks[start_line]].rstrip()
    if not first.startswith("\\["):
        return False
    body = first[2:]
    line = start_line
    if body.endswith("\\]"):
        content = body[:-2]
    elif "\\]" in body:
        return False  # \[x\] followed by text: leave it to the inline rule
    else:
        line = _display_end(state, start_line + 1, end_line)
        if line == -1:
            return False
        parts = [body] + [
            state.src[state.bMarks[k] : state.eMarks[k]].rstrip()
            for k in range(start_line + 1, line + 1)
        ]
        parts[-1] = parts[-1][:-2]
        content = "\n".join(parts)
    if not content.strip():
        return False
    if not silent:
        token = state.push("math_block", "math", 0)
        token.block = True
        token.content = content
        token.markup = "\\["
        token.map = [start_line, line + 1]
    state.line = line + 1
    return True


_AMSMATH_OPEN = re.compile(AMSMATH_OPEN)


def _amsmath_if_closed(
    state: StateBlock, start_line: int, end_line: int, silent: bool
) -> bool:
    """Run the amsmath rule only when its ``\\end{…}`` ends a later line.

    The rule looks for the end line by line to the end of the document, for
    every opener: many openers without an end would cost quadratic time.
    """
    begin = state.bMarks[start_line] + state.tShift[start_line]
    opening = _AMSMATH_OPEN.match(state.src, begin, state.eMarks[start_line])
    if opening is None:
        return False
    closing = f"\\end{{{opening.group(1)}{opening.group(2)}}}"
    ends = state.__dict__.setdefault("amsmath_ends", {})
    if closing not in ends:
        pattern = re.compile(re.escape(closing) + r"\s*?$", re.MULTILINE)
        ends[closing] = [m.start() for m in pattern.finditer(state.src)]
    positions = ends[closing]
    last = state.eMarks[min(end_line, len(state.eMarks)) - 1]
    at = bisect.bisect_right(positions, state.eMarks[start_line])
    if at == len(positions) or positions[at] > last:
        return False
    return amsmath_block(state, start_line, end_line, silent)


# ```cuda {2,4-5} title="gemm.cu" linenos=40
_FENCE_LINES = re.compile(r"\{([\d,\s-]+)\}")
_FENCE_TITLE = re.compile(r"""\b(?:title|filename)=(?:"([^"]*)"|'([^']*)'|(\S+))""")
# What turns line numbers off, as the vault importer reads it.
_FENCE_NO_LINENOS = re.compile(
    r"\bnolinenos\b|\b(?:linenos|showLineNumbers|numberLines)\s*=\s*(?:false|0)\b",
    re.I,
)
_FENCE_LINENOS = re.compile(r"\b(?:linenos|showLineNumbers|numberLines)(?:=(\d+))?")


def _fence_language(info: str) -> str:
    """Return the first word of a fence info string (``cuda{2}`` gives ``cuda``)."""
    return re.split(r"[\s{]", info.strip(), maxsplit=1)[0]


def _render_fence(
    self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any
) -> str:
    """Return a fenced block: ```` ```math ```` as display math, ```` ```mermaid ````
    as a diagram, else highlighted code."""
    token = tokens[idx]
    info = token.info.strip()
    language = _fence_language(info)
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


def _inline_nesting_guard(state: StateInline, silent: bool) -> bool:
    """Past `INLINE_MAX_NESTING`, do what markdown-it does past its own limit."""
    if state.level < INLINE_MAX_NESTING:
        return False
    if silent:
        state.pos = state.posMax
    else:
        state.append_pending(state.src[state.pos])
        state.pos += 1
    return True


def nesting_plugin(md: MarkdownIt) -> None:
    """Let blocks nest `MAX_NESTING` deep, inline markup `INLINE_MAX_NESTING`."""
    md.options["maxNesting"] = MAX_NESTING
    md.inline.ruler.before("text", "nesting_guard", _inline_nesting_guard)


def math_plugin(md: MarkdownIt, *, blocks: bool = True) -> None:
    """Teach ``md`` the math syntax this site reads, for every parser to share.

    ``$…$`` and ``\\(…\\)`` inline (``$5 or $10`` stays text), ``$$…$$`` display,
    and with ``blocks`` also ``\\[…\\]`` and amsmath environments on their own lines.
    """
    md.use(
        dollarmath_plugin,
        allow_labels=False,
        allow_space=False,
        allow_digits=False,
        allow_blank_lines=False,
        double_inline=True,
    )
    md.inline.ruler.before("escape", "math_bracket_inline", _bracket_math_inline)
    if blocks:
        md.use(amsmath_plugin)
        md.block.ruler.at(
            "amsmath",
            _amsmath_if_closed,
            {"alt": ["paragraph", "reference", "blockquote", "list", "footnote_def"]},
        )
        md.block.ruler.before(
            "fence",
            "math_bracket_block",
            _bracket_math_block,
            {"alt": ["paragraph", "reference", "blockquote", "list"]},
        )


def _build() -> MarkdownIt:
    """Return the configured parser; built once per process."""
    md = MarkdownIt(
        "commonmark", {"html": False, "linkify": False, "typographer": False}
    )
    md.use(nesting_plugin)
    md.enable(["table", "strikethrough"])
    md.use(footnote_plugin)
    md.use(math_plugin)
    md.use(cjk_emphasis_plugin)
    md.use(mark_plugin)
    md.use(emoji_plugin)
    md.use(mkdocs_plugin)
    md.use(comment_plugin)
    md.core.ruler.after("block", "callouts", _callouts)
    md.core.ruler.after("callouts", "admonitions", _admonitions)
    md.core.ruler.after("attr_lists", "heading_anchors", _heading_anchors)
    for name in _MATH_TOKENS:
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
        prefetch_math(_formulas(tokens), _math_output(env))
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


def _walk(tokens: Sequence[Token]) -> Iterator[Token]:
    """Yield every token, children included, in document order."""
    for token in tokens:
        yield token
        if token.children:
            yield from _walk(token.children)


def _formulas(tokens: Sequence[Token]) -> Iterator[tuple[str, bool]]:
    """Yield ``(tex, display)`` for every formula in ``tokens``, in order."""
    for token in _walk(tokens):
        if token.type in _MATH_TOKENS:
            yield token.content, _MATH_TOKENS[token.type]
        elif token.type == "fence" and _fence_language(token.info).lower() == "math":
            yield token.content, True


def markdown_formulas(text: str) -> list[tuple[str, bool]]:
    """Return ``(tex, display)`` for every formula in Markdown ``text``, in order."""
    return list(_formulas(_md.parse(text)))


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
            for child in _walk(token.children or []):
                if child.type in ("text", "code_inline"):
                    pieces.append(("text", child.content))
                elif child.type in ("softbreak", "hardbreak"):
                    pieces.append(("text", " "))
                elif _MATH_TOKENS.get(child.type) is False:
                    pieces.append(("math", child.content))
            if pieces:
                passages.append(pieces)
        elif (
            token.type in ("fence", "code_block")
            and token.content.strip()
            and _fence_language(token.info).lower() != "math"
        ):
            passages.append([("text", token.content)])
    return passages


@memoize("markdown-text")
def markdown_text(text: str) -> str:
    """Return the text Markdown ``text`` shows: prose, code and TeX, for search.

    No markup, and nothing of its ``%%comments%%``, which readers never see.
    """
    parts = []
    for token in _walk(_md.parse(text)):
        if token.type in ("text", "code_inline", "fence", "code_block"):
            parts.append(token.content)
        elif token.type == "math_inline":
            parts.append(f"${token.content}$")  # as rich text's inline math reads
        elif token.type in _MATH_TOKENS:
            parts.append(token.content)
        elif token.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return " ".join(" ".join(parts).split())


def markdown_links(text: str) -> list[tuple[str, str]]:
    """Return ``(href, text)`` for every link in Markdown ``text``, in order."""
    links = []
    for token in _walk(_md.parse(text)):
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
