"""MkDocs syntax for markdown-it: admonitions, content tabs, attribute lists.

Admonitions come as ``admonition_*`` tokens (mdit-py-plugins' ``admon``), which
the renderer turns into callouts; content tabs become headed sections; and
attribute lists, which no block carries, are dropped.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from mdit_py_plugins.admon import admon_plugin

__all__ = ["mkdocs_plugin", "strip_attr_lists"]


# pymdownx.tabbed: ``=== "中文"`` (``===!`` starts a new set, ``===+`` is selected).
_TAB = re.compile(r'===[!+]{0,2}[ \t]+"([^"\n]*)"[ \t]*')
# Python-Markdown's attr_list: ``{: .class #id key="value" key=value }``. Every
# repetition is bounded, so a hostile line costs linear time.
_ATTR = (
    r"""(?:[#.][\w-]{1,100}|[\w:-]{1,100}="""
    r"""(?:"[^"\n]{0,500}"|'[^'\n]{0,500}'|[^\s"'{}]{1,500}))"""
)
_ATTR_LIST = (
    rf"\{{:?[ \t]{{0,20}}{_ATTR}(?:[ \t]{{1,20}}{_ATTR}){{0,30}}[ \t]{{0,20}}\}}"
)
_LEADING_ATTRS = re.compile(rf"^{_ATTR_LIST}(?:[ \t]{{0,20}}{_ATTR_LIST}){{0,8}}")
_TRAILING_ATTRS = re.compile(rf"(?:{_ATTR_LIST}[ \t]{{0,20}}){{1,8}}$")
_BREAKS = ("softbreak", "hardbreak")
# ``width="300"`` in an image's attribute list, the value as written.
_WIDTH = re.compile(r"""(?:^|[\s{:])width=(?:"([^"\n]*)"|'([^'\n]*)'|([^\s"'{}]+))""")


def strip_attr_lists(text: str) -> str:
    """Return ``text`` without the attribute lists at its end (a title, a heading)."""
    stripped = _TRAILING_ATTRS.sub("", text)
    return stripped.rstrip(" \t") if stripped != text else text


def _tabs(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """Parse a content tab (``=== "Title"``, body indented) as a heading and its body.

    Tabs one after another are a set; `_tab_levels` gives their headings a level.
    """
    if state.is_code_block(start_line):
        return False
    begin = state.bMarks[start_line] + state.tShift[start_line]
    if not state.src.startswith("===", begin):
        return False
    match = _TAB.fullmatch(state.src[begin : state.eMarks[start_line]].rstrip())
    if match is None:
        return False
    if silent:
        return True
    indent = state.sCount[start_line] + 4
    end = line = start_line + 1
    while line < end_line:
        if not state.isEmpty(line):
            if state.sCount[line] < indent:
                break
            end = line + 1
        line += 1
    # The tab sets seen so far, by indentation: the set's number, where it ended.
    sets = state.env.setdefault("tab_sets", {"count": 0})
    number, last_end = sets.get(indent, (0, -1))
    if last_end < 0 or not all(state.isEmpty(k) for k in range(last_end, start_line)):
        sets["count"] += 1
        number = sets["count"]
    sets[indent] = (number, end)
    heading = state.push("heading_open", "h2", 1)
    heading.markup, heading.map = "===", [start_line, start_line + 1]
    heading.meta = {"tab_set": number, "end": end}
    title = state.push("inline", "", 0)
    title.content, title.map, title.children = match.group(1), heading.map, []
    state.push("heading_close", "h2", -1).markup = "==="
    old_indent, old_max = state.blkIndent, state.lineMax
    state.blkIndent, state.lineMax = indent, end
    state.md.block.tokenize(state, start_line + 1, end)
    state.blkIndent, state.lineMax = old_indent, old_max
    state.line = end
    return True


def _tab_levels(state: StateCore) -> None:
    """Give each set of tab headings the level below the heading before the set.

    Headings inside a tab's content do not count.
    """
    above, inside_until = 1, -1
    levels: dict[int, str] = {}
    for index, token in enumerate(state.tokens):
        if token.type != "heading_open":
            continue
        number = token.meta.get("tab_set") if token.meta else None
        if number is None:
            if not token.map or token.map[0] >= inside_until:
                above = int(token.tag[1])
            continue
        tag = levels.setdefault(number, f"h{min(above + 1, 4)}")
        token.tag = state.tokens[index + 2].tag = tag
        inside_until = max(inside_until, token.meta["end"])


_ADMONITION_START = re.compile(r"( *)(?:!!!|\?\?\?\+?)[ \t]*\S")
_FENCE_MARK = re.compile(r" {0,3}(?:```|~~~)")


def _admonition_blank_lines(state: StateCore) -> None:
    """Let blank lines inside an admonition's body keep it open.

    mdit-py-plugins' admonition ends at two blank lines in a row, where
    Python-Markdown goes on while the next text is indented into the body (two
    blank lines between functions in a code example). A blank line followed by
    such a line is given the body's indentation; the line count is unchanged.
    """
    if "!!!" not in state.src and "???" not in state.src:
        return
    lines = state.src.split("\n")
    bodies: list[int] = []  # the body indentation of each open admonition
    in_fence = False
    for index, line in enumerate(lines):
        if not line.strip():
            continue
        lead = line[: len(line) - len(line.lstrip(" \t"))]
        indent = len(lead.expandtabs(4))
        while bodies and indent < bodies[-1]:
            bodies.pop()
        if bodies:
            blank = index - 1
            while blank >= 0 and not lines[blank].strip():
                lines[blank] = " " * bodies[-1]
                blank -= 1
        elif _FENCE_MARK.match(line):
            in_fence = not in_fence
        if not in_fence and (start := _ADMONITION_START.match(line)):
            bodies.append(len(start.group(1)) + 4)
    state.src = "\n".join(lines)


def _attr_lists(state: StateCore) -> None:
    """Drop attribute lists after images, links and code, and at the end of a line.

    ``![a](x.png){ width="200px" }``, ``## Title { #id }``, a paragraph's last
    line ``{: .class }``. An image keeps the width its list gives, as written,
    in ``token.meta["width"]`` (the importer reads it); alignment is dropped.
    """
    for token in state.tokens:
        children = token.children
        if token.type != "inline" or not children:
            continue
        kept: list[Token] = []
        for index, child in enumerate(children):
            if child.type == "text":
                if kept and kept[-1].type not in ("text", *_BREAKS):
                    leading = _LEADING_ATTRS.match(child.content)
                    if leading is not None:
                        width = _WIDTH.search(leading.group(0))
                        if width is not None and kept[-1].type == "image":
                            kept[-1].meta["width"] = next(
                                value for value in width.groups() if value is not None
                            )
                        child.content = child.content[leading.end() :]
                following = children[index + 1] if index + 1 < len(children) else None
                if following is None or following.type in _BREAKS:
                    child.content = strip_attr_lists(child.content)
                if not child.content:
                    continue
            kept.append(child)
        while kept and kept[-1].type in _BREAKS:
            kept.pop()
        token.children = kept


def mkdocs_plugin(md: MarkdownIt) -> None:
    """Teach ``md`` MkDocs syntax: admonitions, content tabs, attribute lists.

    Admonitions come as ``admonition_*`` tokens (mdit-py-plugins' ``admon``),
    tabs as headed sections, and attribute lists are dropped.
    """
    md.use(admon_plugin)
    md.core.ruler.after("normalize", "admonition_blank_lines", _admonition_blank_lines)
    md.block.ruler.before(
        "fence",
        "tabs",
        _tabs,
        {"alt": ["paragraph", "reference", "blockquote", "list"]},
    )
    md.core.ruler.after("block", "tab_levels", _tab_levels)
    md.core.ruler.after("inline", "attr_lists", _attr_lists)
