"""Lists, quotes, callouts, and the Markdown block for what rich text cannot hold.

A list, quote or callout whose content rich text cannot say (a footnote, code
or display math inside) is kept as a Markdown block instead. `ContainerMixin`
is part of `blocks._BodyParser`.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence

from markdown_it.token import Token

from rendering.markdown import CALLOUT_TYPES

from .inline import DisplayMath, ImageRef, LinkRef, escape_text, plain_to_markdown
from .links import WIKILINK, is_markdown_target, parse_wikilink
from .rawhtml import IMG_TAG
from .tokens import split_nodes, walk_children

_CALLOUT = re.compile(r"\s*\[!([A-Za-z][\w-]*)\]([-+]?)[ \t]*")
_SOURCE_DASH = re.compile(r"^(?:—{1,2}|―{1,2}|–|--)\s*(\S.*)$")
EDGE_BREAKS = re.compile(r"^(?:\s|<br/>)+|(?:\s|<br/>)+$")
_MD_LINK = re.compile(
    r"(?<!!)\[((?:\\.|[^\[\]\n])*)\]\(\s*<?([^()\s<>]+)>?"
    r"""(?:\s+(?:"[^"\n]*"|'[^'\n]*'))?\s*\)"""
)
_FENCE_LINE = re.compile(r"\s{0,3}(```|~~~)")


class ContainerMixin:
    """Lists, quotes, callouts and the Markdown fallback, for `_BodyParser`."""

    # Lists -------------------------------------------------------------------

    def _list(self, node: list[Token]) -> None:
        line = self._line(node[0])
        if self._footnote_labels(node):
            self._markdown(node)
            return
        converted = self._list_html(node)
        if converted is None or any(isinstance(p, DisplayMath) for p in converted[1]):
            self._markdown(node)
            return
        markup, images = converted
        self._add_prose(markup, line)
        for image in images:
            self._warn("an image inside a list is placed after the list", image.line)
            self._image(image)

    def _list_html(self, node: list[Token]) -> tuple[str, list] | None:
        """Return a list as rich-text HTML and the images it held, or None.

        None means the list holds blocks rich text cannot (code, tables…).
        """
        out: list[str] = []
        extras: list = []
        paragraphs: list[int] = []  # paragraphs seen in each open <li>
        tags = {
            "bullet_list_open": "<ul>",
            "bullet_list_close": "</ul>",
            "ordered_list_open": "<ol>",
            "ordered_list_close": "</ol>",
        }
        for token in node:
            kind = token.type
            if kind in tags:
                out.append(tags[kind])
            elif kind == "list_item_open":
                out.append("<li>")
                paragraphs.append(0)
            elif kind == "list_item_close":
                out.append("</li>")
                paragraphs.pop()
            elif kind == "paragraph_open":
                if paragraphs and paragraphs[-1]:
                    out.append("<br/>")
                if paragraphs:
                    paragraphs[-1] += 1
            elif kind == "paragraph_close":
                continue
            elif kind == "inline":
                for piece in self.inline.pieces(
                    token.children or [], self._line(token), token.content
                ):
                    (out if isinstance(piece, str) else extras).append(piece)
            else:
                return None
        return "".join(out), extras

    def _rich_body(self, items: list) -> tuple[str, list[ImageRef]] | None:
        """Return the rich text of a callout or quote body, or None if it cannot be.

        ``items`` are (children, line, source) for paragraphs, and nodes.
        """
        parts: list[str] = []
        images: list[ImageRef] = []
        for item in items:
            if isinstance(item, tuple):
                children, line, raw = item
                pieces = self.inline.pieces(children, line, raw)
                if any(isinstance(p, DisplayMath) for p in pieces):
                    return None
                images.extend(p for p in pieces if isinstance(p, ImageRef))
                markup = EDGE_BREAKS.sub(
                    "", "".join(p for p in pieces if isinstance(p, str))
                )
                if markup:
                    parts.append(f"<p>{markup}</p>")
                continue
            kind = item[0].type
            if kind == "paragraph_open":
                pieces = self.inline.pieces(
                    item[1].children or [], self._line(item[0]), item[1].content
                )
                if any(isinstance(p, DisplayMath) for p in pieces):
                    return None
                images.extend(p for p in pieces if isinstance(p, ImageRef))
                markup = EDGE_BREAKS.sub(
                    "", "".join(p for p in pieces if isinstance(p, str))
                )
                if markup:
                    parts.append(f"<p>{markup}</p>")
            elif kind in ("bullet_list_open", "ordered_list_open"):
                converted = self._list_html(item)
                if converted is None or any(
                    isinstance(p, DisplayMath) for p in converted[1]
                ):
                    return None
                parts.append(converted[0])
                images.extend(converted[1])
            else:
                return None
        return "".join(parts), images

    # Quotes and callouts -----------------------------------------------------

    def _blockquote(self, node: list[Token]) -> None:
        line = self._line(node[0])
        if self._footnote_labels(node):
            self._markdown(node)
            return
        inner = split_nodes(node[1:-1])
        first = inner[0] if inner else []
        marker = None
        if first and first[0].type == "paragraph_open":
            marker = _CALLOUT.match(first[1].content)
        if marker is not None:
            self._callout(node, inner, marker, line)
        else:
            self._quote(node, inner, line)

    def _callout(self, node, inner, marker: re.Match, line: int) -> None:
        written = marker.group(1).lower()
        kind = CALLOUT_TYPES.get(written)
        if kind is None:
            self._warn(
                f"unknown callout type [!{marker.group(1)}]; imported as a note", line
            )
            kind = "note"
        raw = inner[0][1].content
        children = list(inner[0][1].children or [])
        split = next(
            (k for k, c in enumerate(children) if c.type in ("softbreak", "hardbreak")),
            len(children),
        )
        title_children, body_children = children[:split], children[split + 1 :]
        if title_children and title_children[0].type == "text":
            head = copy.copy(title_children[0])
            head.content = _CALLOUT.sub("", head.content, count=1)
            title_children[0] = head
        title = self.inline.text(title_children, raw)
        items: list = []
        if body_children:
            items.append((body_children, line + 1, raw))
        items.extend(inner[1:])
        body = self._rich_body(items)
        if body is None:
            self._markdown(node)
            return
        markup, images = body
        if not markup:
            if not title:
                self._warn("empty callout; dropped", line)
                return
            # A one-line callout: its text is the body, under the kind's label.
            one_line = self._rich_body([(title_children, line, raw)])
            markup, title = (one_line[0] if one_line else ""), ""
        self._emit(
            "callout", {"kind": kind, "title": title[:255], "body": markup}, line
        )
        self._hoisted(images, "callout")

    def _admonition(self, node: list[Token]) -> None:
        """Import a MkDocs admonition (``!!! note "Title"``, ``??? tip``) as a callout.

        A collapsible one is shown open; ``!!! note ""`` (no title bar) gets the
        callout's kind label, as every callout block has a title bar.
        """
        line = self._line(node[0])
        written = node[0].meta.get("tag", "")
        kind = CALLOUT_TYPES.get(written)
        if kind is None:
            self._warn(
                f"unknown admonition type !!! {written}; imported as a note", line
            )
            kind = "note"
        if self._footnote_labels(node):
            self._markdown(node)
            return
        inner = node[1:-1]
        title = ""
        title_children: list[Token] = []
        if inner and inner[0].type == "admonition_title_open":
            # Without a title of its own, the admonition is titled by its type.
            if len(node[0].info.split()) > 1:
                title_children = inner[1].children or []
                title = self.inline.text(title_children, inner[1].content)
            inner = inner[3:]
        body = self._rich_body(split_nodes(inner))
        if body is None:
            self._markdown(node)
            return
        markup, images = body
        if not markup:
            if not title:
                self._warn("empty callout; dropped", line)
                return
            one_line = self._rich_body([(title_children, line, node[0].info)])
            markup, title = (one_line[0] if one_line else ""), ""
        self._emit(
            "callout", {"kind": kind, "title": title[:255], "body": markup}, line
        )
        self._hoisted(images, "callout")

    def _quote(self, node, inner, line: int) -> None:
        items: list = list(inner)
        source = ""
        last = items[-1] if items else None
        if last is not None and last[0].type == "paragraph_open":
            children = list(last[1].children or [])
            breaks = [
                k
                for k, c in enumerate(children)
                if c.type in ("softbreak", "hardbreak")
            ]
            cut = breaks[-1] + 1 if breaks else 0
            raw = last[1].content
            match = _SOURCE_DASH.match(self.inline.text(children[cut:], raw))
            if match:
                source = match.group(1).strip()
                kept = children[: breaks[-1]] if breaks else []
                items[-1] = (kept, self._line(last[0]), raw)
        body = self._rich_body(items)
        if body is None:
            self._markdown(node)
            return
        markup, images = body
        if not markup:
            self._warn("empty quote; dropped", line)
            return
        self._emit("quote", {"quote": markup, "source": source[:255]}, line)
        self._hoisted(images, "quote")

    def _hoisted(self, images: list[ImageRef], where: str) -> None:
        for image in images:
            self._warn(f"an image inside a {where} is placed after it", image.line)
            self._image(image)

    # Markdown fallback -----------------------------------------------------

    def _footnote_labels(self, node: Sequence[Token]) -> list[str]:
        labels: list[str] = []
        for token in walk_children(node):
            if token.type == "footnote_ref":
                label = token.meta.get("label")
                if label not in labels:
                    labels.append(label)
        return labels

    def _markdown(self, node: list[Token]) -> None:
        """Keep a node as a Markdown block: footnotes, or what rich text cannot say.

        The block holds the node's source and the definitions of the footnotes it
        references, so each note stays with its reference.
        """
        line = self._line(node[0])
        start, end = node[0].map or (0, 0)
        parts = [self._source(start, end)]
        for label in self._footnote_labels(node):
            if label in self.footnotes:
                first, last = self.footnotes[label]
                parts.append(self._source(first, last))
                self.shown_notes.add(label)
                if label in self.empty_notes:
                    self._warn(f"footnote [^{label}] has an empty definition", line)
            else:
                self._warn(f"footnote [^{label}] has no definition", line)
        for token in walk_children(node):
            if token.type == "image" or (
                token.type in ("html_inline", "html_block")
                and IMG_TAG.search(token.content)
            ):
                self._warn("an image inside a Markdown block is not imported", line)
        self._emit("markdown", self._markdown_links("\n\n".join(parts), line), line)

    def _source(self, start: int, end: int) -> str:
        """Return source lines ``start:end``; a soft break made hard ends in ``\\``."""
        lines = [
            text.rstrip(" \t") + "\\" if number in self.hard_lines else text
            for number, text in enumerate(self.source_lines[start:end], start)
        ]
        return "\n".join(lines).strip("\n")

    def _markdown_links(self, source: str, line: int) -> str:
        """Replace links to other files in Markdown source with link markers."""
        out = []
        in_fence = False
        for offset, text in enumerate(source.split("\n")):
            if _FENCE_LINE.match(text):
                in_fence = not in_fence
            if not in_fence:
                text = _MD_LINK.sub(
                    lambda m, at=line + offset: self._md_link(m, at), text
                )
                text = WIKILINK.sub(lambda m, at=line + offset: self._wiki(m, at), text)
            out.append(text)
        return "\n".join(out)

    def _md_link(self, match: re.Match, line: int) -> str:
        if not is_markdown_target(match.group(2)):
            return match.group(0)
        label = match.group(1)
        ref = LinkRef(
            match.group(2), False, escape_text(label), label, line, markdown=True
        )
        return self.collector.link(ref)

    def _wiki(self, match: re.Match, line: int) -> str:
        wiki = parse_wikilink(match.group(2))
        if match.group(1) or not wiki.target:
            return match.group(0)
        label = plain_to_markdown(wiki.label)
        ref = LinkRef(
            wiki.target, True, escape_text(wiki.label), label, line, markdown=True
        )
        return self.collector.link(ref)
