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

from rendering.callouts import CALLOUT_TYPES

from .inline import DisplayMath, ImageRef, LinkRef, escape_text, plain_to_markdown
from .links import WIKILINK, is_markdown_target, parse_wikilink
from .theme import drop_placeholders_in_source
from .tokens import split_nodes, walk_children

_CALLOUT = re.compile(r"\s*\[!([A-Za-z][\w-]*)\]([-+]?)[ \t]*")
# A callout's first line in source, at any depth (in a list item, a quote).
_CALLOUT_LINE = re.compile(r"[ \t]*(?:>[ \t]*)+\[![A-Za-z][\w-]*\]")
_SOURCE_DASH = re.compile(r"^(?:—{1,2}|―{1,2}|–|--)\s*(\S.*)$")
# A trailing run is matched only from its start (the lookbehinds), so a long run
# of spaces inside a paragraph costs linear time, not quadratic.
EDGE_BREAKS = re.compile(r"^(?:\s|<br/>)+|(?<!\s)(?<!<br/>)(?:\s|<br/>)+$")
_MD_LINK = re.compile(
    r"(?<!!)\[((?:\\.|[^\[\]\n])*)\]\(\s*<?([^()\s<>]+)>?"
    r"""(?:\s+(?:"[^"\n]*"|'[^'\n]*'))?\s*\)"""
)
_FENCE_LINE = re.compile(r"\s{0,3}(```|~~~)")
_TAGS = re.compile(r"<[^>]*>")
_VISIBLE = re.compile(r"[^\s\u00a0]")


def _tidy(markup: str) -> str:
    """Drop what an image leaves at the end of its item: breaks, an empty item."""
    markup = re.sub(r"(?:<br/>|\s)+</li>", "</li>", markup)
    markup = markup.replace("<li></li>", "")
    return re.sub(r'<(ul|ol)(?: start="\d+")?></\1>', "", markup)


class ContainerMixin:
    """Lists, quotes, callouts and the Markdown fallback, for `_BodyParser`."""

    # Lists -------------------------------------------------------------------

    def _list(self, node: list[Token]) -> None:
        line = self._line(node[0])
        if self._footnote_labels(node):
            self._markdown(node)
            return
        parts = self._list_html(node)
        if parts is None:
            self._markdown(node)
            return
        for part in parts:
            if not isinstance(part, str):
                self._image(part)
            elif part:
                self._add_prose(part, line)

    def _list_html(self, node: list[Token]) -> list[str | ImageRef] | None:
        """Return a list as rich-text HTML, split around the images it shows.

        An image ending a top-level item (a step, then its figure) follows that
        item, and the list goes on after it, an ordered one at the next number.
        None means rich text cannot say the list: it holds blocks (code,
        tables…), display math, or an image elsewhere (within an item's text,
        in a nested item), which only a Markdown block keeps in place.
        """
        parts: list[str | ImageRef] = []
        out: list[str] = []
        paragraphs: list[int] = []  # paragraphs seen in each open <li>
        lists: list[str] = []  # the open list tags
        pending: list[ImageRef] = []  # images ending the current top-level item
        number = 1  # of the next top-level item
        for token in node:
            kind = token.type
            if kind in ("bullet_list_open", "ordered_list_open"):
                tag = "ul" if kind == "bullet_list_open" else "ol"
                start = token.attrGet("start") if tag == "ol" else None
                if not lists and start is not None:
                    number = int(start)
                out.append(
                    f'<ol start="{start}">' if start not in (None, 1) else f"<{tag}>"
                )
                lists.append(tag)
            elif kind in ("bullet_list_close", "ordered_list_close"):
                out.append(f"</{lists.pop()}>")
            elif kind == "list_item_open":
                if len(lists) == 1 and pending:
                    # Split: the list so far, the images, then the rest of it.
                    out.append(f"</{lists[0]}>")
                    parts.append(_tidy("".join(out)))
                    parts.extend(pending)
                    out, pending = [], []
                    opening = "<ol>" if number == 1 else f'<ol start="{number}">'
                    out.append(opening if lists[0] == "ol" else "<ul>")
                out.append("<li>")
                paragraphs.append(0)
            elif kind == "list_item_close":
                out.append("</li>")
                paragraphs.pop()
                if not paragraphs:
                    number += 1
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
                    if isinstance(piece, DisplayMath):
                        return None
                    if isinstance(piece, ImageRef):
                        if len(lists) > 1:
                            return None
                        pending.append(piece)
                    elif pending and _VISIBLE.search(_TAGS.sub("", piece)):
                        return None  # text after the image, in its item
                    else:
                        out.append(piece)
            else:
                return None
        parts.append(_tidy("".join(out)))
        parts.extend(pending)
        return parts

    def _rich_body(self, items: list) -> str | None:
        """Return the rich text of a callout or quote body, or None if it cannot be.

        ``items`` are (children, line, source) for paragraphs, and nodes. A body
        showing an image is None too: a Markdown block keeps the image in place.
        """
        parts: list[str] = []
        for item in items:
            if isinstance(item, tuple):
                children, line, raw = item
            elif item[0].type == "paragraph_open":
                children, line, raw = (
                    item[1].children or [],
                    self._line(item[0]),
                    item[1].content,
                )
            elif item[0].type in ("bullet_list_open", "ordered_list_open"):
                converted = self._list_html(item)
                if converted is None or len(converted) > 1:
                    return None
                parts.append(converted[0])
                continue
            else:
                return None
            pieces = self.inline.pieces(children, line, raw)
            if any(not isinstance(p, str) for p in pieces):
                return None
            markup = EDGE_BREAKS.sub("", "".join(pieces))
            if markup:
                parts.append(f"<p>{markup}</p>")
        return "".join(parts)

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
        markup = self._rich_body(items)
        if markup is None:
            self._markdown(node)
            return
        self._emit_callout(kind, title, title_children, raw, markup, line)

    def _emit_callout(
        self,
        kind: str,
        title: str,
        title_children: list[Token],
        title_raw: str,
        markup: str,
        line: int,
    ) -> None:
        """Emit a callout; a title with no body becomes the body, under the label."""
        if not markup:
            if not title:
                self._warn("empty callout; dropped", line)
                return
            one_line = self._rich_body([(title_children, line, title_raw)])
            markup, title = one_line or "", ""
        self._emit(
            "callout", {"kind": kind, "title": title[:255], "body": markup}, line
        )

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
        markup = self._rich_body(split_nodes(inner))
        if markup is None:
            self._markdown(node)
            return
        self._emit_callout(kind, title, title_children, node[0].info, markup, line)

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
        markup = self._rich_body(items)
        if markup is None:
            self._markdown(node)
            return
        if not markup:
            self._warn("empty quote; dropped", line)
            return
        self._emit("quote", {"quote": markup, "source": source[:255]}, line)

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
        # One node, or several a comment spans (``_commented``).
        maps = [token.map for token in node if token.map] or [(0, 0)]
        start, end = maps[0][0], max(last for _, last in maps)
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
        # Placeholders were warned of with the text they stood in.
        source = drop_placeholders_in_source("\n\n".join(parts))
        source = self._markdown_images(source, line)
        self._emit("markdown", self._markdown_links(source, line), line)

    def _source(self, start: int, end: int) -> str:
        """Return source lines ``start:end``; a soft break made hard ends in ``\\``.

        A callout's ``[!TYPE] title`` line never does: its end is the title's.
        """
        lines = [
            text.rstrip(" \t") + "\\"
            if number in self.hard_lines and not _CALLOUT_LINE.match(text)
            else text
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
