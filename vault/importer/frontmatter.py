"""Front matter as real vaults write it: YAML, tolerant of the usual mistakes.

Obsidian, Quartz and Hexo accept front matter that is not valid YAML: an unquoted
``: `` in a title, say. When PyYAML (or tomllib) refuses the block, the keys are
recovered line by line and a warning says so; a line that is no key is dropped
with a warning quoting it, and a block with no key at all is read as body. Only
a block nested too deeply to read fails the file. YAML aliases may not expand
past ``MAX_ALIAS_NODES`` values ("billion laughs"). See docs/markdown-format.md.
"""

from __future__ import annotations

import datetime
import re
import tomllib
from dataclasses import dataclass, field
from typing import Any

import yaml

from .report import Issue

# Alternative spellings of the keys the importer reads, by canonical name.
KEY_ALIASES: dict[str, str] = {
    "created": "date",
    "published": "date",
    "update": "updated",
    "lastmod": "updated",
    "modified": "updated",
    "last_modified": "updated",
    "description": "summary",
    "image": "cover",
    "alias": "aliases",
    "order": "weight",
    "tag": "tags",
}


# Values a front matter may reach through YAML aliases (anchors reused).
MAX_ALIAS_NODES = 10_000


class AliasesTooLarge(yaml.YAMLError):
    """YAML aliases expand the block past MAX_ALIAS_NODES values, or into a loop."""


class _FrontMatterLoader(yaml.SafeLoader):
    """YAML's safe loader, with aliases bounded and impossible dates kept as text.

    Aliases are shared, not copied, while loading, but anything walking the
    result (a title joined from a list) would expand them: a 1 KB chain of
    anchors stands for billions of values. The loader counts the values the
    document stands for before building anything, and refuses past the limit.
    ``2026-02-30`` or ``0000-00-00`` is kept as written; ``parse_date`` warns.
    """

    uses_aliases = False

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            self.uses_aliases = True
        return super().compose_node(parent, index)

    def get_single_node(self):
        node = super().get_single_node()
        if node is not None and self.uses_aliases:
            _count_expanded(node)
        return node

    def construct_yaml_timestamp(self, node):
        try:
            return super().construct_yaml_timestamp(node)
        except (ValueError, OverflowError):
            return self.construct_scalar(node)


_FrontMatterLoader.add_constructor(
    "tag:yaml.org,2002:timestamp", _FrontMatterLoader.construct_yaml_timestamp
)


def _count_expanded(root: yaml.Node) -> int:
    """Return how many values ``root`` stands for with its aliases expanded.

    Raise AliasesTooLarge past MAX_ALIAS_NODES or for an alias to itself. Each
    distinct node is counted once, so the work is linear in the text.
    """
    sizes: dict[int, int] = {}
    active: set[int] = set()

    def size(node: yaml.Node) -> int:
        if id(node) in sizes:
            return sizes[id(node)]
        if id(node) in active:
            raise AliasesTooLarge("a YAML alias refers to itself")
        active.add(id(node))
        total = 1
        if isinstance(node, yaml.SequenceNode):
            children = node.value
        elif isinstance(node, yaml.MappingNode):
            children = [item for pair in node.value for item in pair]
        else:
            children = []
        for child in children:
            total += size(child)
            if total > MAX_ALIAS_NODES:
                raise AliasesTooLarge(
                    f"YAML aliases expand to more than {MAX_ALIAS_NODES:,} values"
                )
        active.discard(id(node))
        sizes[id(node)] = total
        return total

    return size(root)


def _yaml_load(text: str) -> Any:
    """Load YAML with the safe loader above (no Python objects are built)."""
    return yaml.load(text, Loader=_FrontMatterLoader)  # noqa: S506 (a SafeLoader)


_DATE = re.compile(r"(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[T\s].*)?")
_KEY_LINE = re.compile(r"([^\s:#\\\-][^:]*?)[ \t]*:(?:[ \t]+(.*?)|[ \t]*)$")
_TOML_KEY_LINE = re.compile(r"""[\w"'.-][^=]*=""")
# A list item escaped by a Markdown converter: ``\- item``.
_ESCAPED_ITEM = re.compile(r"([ \t]*)\\([-*+] )")
_ITEM = re.compile(r"[ \t]*[-*+] ")
_TOML_TABLE = re.compile(r"\[([^\[\]]+)\]")
_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0", ""}


class _NoKeys(Exception):
    """The block between the fences holds no ``key: value`` line."""


class FrontMatterError(ValueError):
    """The front matter cannot be read; the file must not be imported."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.issue = Issue(message, line)


@dataclass
class FrontMatter:
    """The keys of one file's front matter, normalised."""

    title: str = ""
    date: datetime.date | None = None
    updated: datetime.date | None = None
    tags: list[str] = field(default_factory=list)
    summary: str = ""
    cover: str = ""
    aliases: list[str] = field(default_factory=list)
    slug: str = ""
    permalink: str = ""
    draft: bool = False
    comments: bool | None = None
    weight: float | None = None
    ordering: str = ""
    present: bool = False


@dataclass
class SplitDocument:
    """A file split into its front matter and its body."""

    front: FrontMatter
    body: str
    # 1-based line number of the body's first line in the file.
    body_line: int
    warnings: list[Issue] = field(default_factory=list)


def split_document(text: str) -> SplitDocument:
    """Split ``text`` into front matter and body.

    Raise FrontMatterError only for a block nested too deeply to read; any other
    problem is a warning, and what cannot be read as keys is dropped or is body.
    """
    text = text.removeprefix("\ufeff")
    lines = text.split("\n")
    opener = lines[0].rstrip() if lines else ""
    if opener not in ("---", "+++"):
        return SplitDocument(FrontMatter(), text, 1)
    closers = ("---", "...") if opener == "---" else ("+++",)
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in closers), None)
    if end is None:
        warning = Issue(
            f"front matter opened with {opener} is never closed; "
            "the whole file is read as body",
            1,
        )
        return SplitDocument(FrontMatter(), text, 1, [warning])
    block = "\n".join(lines[1:end])
    warnings: list[Issue] = []
    if opener == "---":
        block = _unescape_items(block, warnings)
    try:
        if opener == "+++":
            data: Any = _load_toml(block, warnings)
        else:
            data = _load_yaml(block, warnings)
    except _NoKeys:
        warning = Issue(
            "front matter holds no key: value line; the whole file is read as body",
            1,
        )
        return SplitDocument(FrontMatter(), text, 1, [warning])
    except RecursionError as error:
        raise FrontMatterError(
            "front matter is nested too deeply to read (lists or mappings "
            "inside one another hundreds of times)",
            1,
        ) from error
    front = _normalise(data, warnings)
    front.present = True
    return SplitDocument(front, "\n".join(lines[end + 1 :]), end + 2, warnings)


def _unescape_items(block: str, warnings: list[Issue]) -> str:
    """Return ``block`` with ``\\- item`` read as ``- item`` where a list may be.

    Converters escape list items. One counts as an item below a key with no
    value on its line, or below another item; elsewhere it stays, to be dropped.
    """
    lines = block.split("\n")
    in_list = False
    first: int | None = None
    for i, line in enumerate(lines):
        escaped = _ESCAPED_ITEM.match(line)
        if escaped and in_list:
            lines[i] = escaped.group(1) + escaped.group(2) + line[escaped.end() :]
            first = i if first is None else first
        elif line.strip():
            key = _KEY_LINE.match(line)
            in_list = bool(_ITEM.match(line)) or bool(key and not key.group(2))
    if first is None:
        return block
    shown = block.split("\n")[first].strip()
    warnings.append(
        Issue(f"front matter line read as a list item: '{shown}'", first + 2)
    )
    return "\n".join(lines)


def _load_yaml(block: str, warnings: list[Issue]) -> dict[str, Any]:
    """Return the mapping in ``block``, recovering keys line by line if need be."""
    try:
        data = _yaml_load(block) if block.strip() else {}
    except AliasesTooLarge as error:
        recovered = _recover(block, warnings)
        warnings.insert(
            len(warnings) - len(recovered.dropped),
            Issue(
                f"front matter YAML aliases refused ({error}); "
                f"read {len(recovered.data)} keys line by line without them",
                1,
            ),
        )
        return recovered.data
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 1
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        recovered = _recover(block, warnings)
        warnings.insert(
            len(warnings) - len(recovered.dropped),
            Issue(
                f"front matter is not valid YAML ({problem}); "
                f"read {len(recovered.data)} keys line by line",
                line,
            ),
        )
        return recovered.data
    if data is None:
        return {}
    if not isinstance(data, dict):
        if not any(_KEY_LINE.match(line) for line in block.split("\n")):
            raise _NoKeys
        kind = "list" if isinstance(data, list) else type(data).__name__
        warnings.append(Issue(f"front matter is a {kind}, not key: value lines", 2))
        return {}
    return data


def _load_toml(block: str, warnings: list[Issue]) -> dict[str, Any]:
    """Return the table in ``block``; if invalid, the lines that parse alone."""
    try:
        return tomllib.loads(block)
    except tomllib.TOMLDecodeError as error:
        problem = str(error)
    data: dict[str, Any] = {}
    table = data
    dropped: list[Issue] = []
    for number, line in enumerate(block.split("\n"), start=2):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if header := _TOML_TABLE.fullmatch(stripped):
            table = data.setdefault(header.group(1).strip(), {})
            continue
        try:
            item = tomllib.loads(line) if _TOML_KEY_LINE.match(stripped) else None
        except tomllib.TOMLDecodeError:
            item = None
        if item is None:
            dropped.append(_dropped(stripped, number))
        elif isinstance(table, dict):
            table.update(item)
    if not any(not isinstance(value, dict) or value for value in data.values()):
        raise _NoKeys
    warnings.append(
        Issue(
            f"front matter is not valid TOML ({problem}); "
            f"read {len(data)} keys line by line",
            1,
        )
    )
    warnings.extend(dropped)
    return data


def _dropped(line: str, number: int) -> Issue:
    shown = line if len(line) <= 60 else line[:59] + "…"
    return Issue(f"front matter line dropped, not key: value: '{shown}'", number)


@dataclass
class _Recovered:
    data: dict[str, Any]
    dropped: list[Issue]


def _recover(block: str, warnings: list[Issue]) -> _Recovered:
    """Return the keys of an invalid YAML block, read one top-level key at a time.

    A key line is ``name: value`` at the start of a line; indented lines and
    ``- item`` lines below belong to it (also ``\\- item``, as converters escape
    it). A value on the key's own line is taken verbatim when YAML would not
    read it as a plain scalar (``a: b: c``). Any other line is dropped, and a
    warning quoting it is added to ``warnings``. Raise _NoKeys if no key is found.
    """
    entries: list[tuple[str, str, list[str], int]] = []
    dropped: list[Issue] = []
    for number, line in enumerate(block.split("\n"), start=2):
        stripped = line.strip()
        match = _KEY_LINE.match(line)
        if match and not line[:1].isspace():
            entries.append((match.group(1), match.group(2) or "", [], number))
        elif not stripped or stripped.startswith("#"):
            if entries:
                entries[-1][2].append("")
        elif entries and (
            line[:1].isspace() or (stripped.startswith("- ") and not entries[-1][1])
        ):
            entries[-1][2].append(line)
        else:
            dropped.append(_dropped(stripped, number))
    if not entries:
        raise _NoKeys
    warnings.extend(dropped)
    data: dict[str, Any] = {}
    for key, first, rest, _ in entries:
        nested = [line for line in rest if line.strip()]
        if nested and not first:
            data[key] = _load_nested(key, nested)
        else:
            data[key] = _scalar(first)
    return _Recovered(data, dropped)


def _load_nested(key: str, lines: list[str]) -> Any:
    """Return the value written on the lines below ``key:``."""
    try:
        value = _yaml_load(f"{key}:\n" + "\n".join(lines))
        return value[key] if isinstance(value, dict) else None
    except yaml.YAMLError:
        return [line.strip().removeprefix("- ").strip() for line in lines]


def _scalar(text: str) -> Any:
    """Return a one-line value as YAML reads it, or verbatim if YAML would not."""
    if not text:
        return None
    try:
        value = _yaml_load(text)
    except yaml.YAMLError:
        value = None
    else:
        if not isinstance(value, dict):
            return value
    if len(text) > 1 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text


def _normalise(data: dict[str, Any], warnings: list[Issue]) -> FrontMatter:
    """Return the known keys of ``data`` as a FrontMatter."""
    values: dict[str, Any] = {}
    for key, value in data.items():
        name = str(key).strip().lower()
        name = KEY_ALIASES.get(name, name)
        # The canonical spelling wins over an alias written in the same block.
        if name not in values or str(key).strip().lower() == name:
            values[name] = value
    front = FrontMatter()
    front.title = _text(values.get("title"))
    front.summary = _text(values.get("summary"))
    front.cover = _text(values.get("cover"))
    front.slug = _text(values.get("slug"))
    front.permalink = _text(values.get("permalink"))
    front.ordering = _text(values.get("ordering")).lower()
    front.tags = parse_tags(values.get("tags"))
    front.aliases = _string_list(values.get("aliases"))
    for name in ("date", "updated"):
        if values.get(name) in (None, ""):
            continue
        try:
            setattr(front, name, parse_date(values[name]))
        except ValueError:
            warnings.append(
                Issue(
                    f"{name}: cannot read {values[name]!r} as a date; "
                    "the file's own date is used"
                )
            )
    for name in ("draft", "comments"):
        if name in values and values[name] is not None:
            try:
                setattr(front, name, parse_bool(values[name]))
            except ValueError:
                warnings.append(Issue(f"{name}: {values[name]!r} is not true or false"))
    weight = values.get("weight")
    if weight not in (None, ""):
        try:
            front.weight = float(weight)
        except (TypeError, ValueError):
            warnings.append(Issue(f"weight: {weight!r} is not a number"))
    return front


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(_text(item) for item in value)
    return str(value).strip()


def _string_list(value: Any) -> list[str]:
    if value is None:
        return []
    items = value if isinstance(value, list | tuple) else [value]
    return [text for item in items if (text := _text(item))]


def parse_tags(value: Any) -> list[str]:
    """Return tag names from a list or a comma-separated string, `#` dropped.

    Tags differing only in case are one tag (the first spelling is kept).
    """
    if value is None:
        return []
    if isinstance(value, str):
        items: list[Any] = value.split(",")
    elif isinstance(value, list | tuple):
        items = list(value)
    else:
        items = [value]
    tags: list[str] = []
    seen: set[str] = set()
    for item in items:
        name = " ".join(_text(item).lstrip("#").split())[:100]
        if name and name.casefold() not in seen:
            seen.add(name.casefold())
            tags.append(name)
    return tags


def parse_date(value: Any) -> datetime.date:
    """Return a date from YAML's date or datetime, or text like ``2026-8-5``."""
    if isinstance(value, datetime.datetime):
        return value.date()
    if isinstance(value, datetime.date):
        return value
    match = _DATE.fullmatch(str(value).strip())
    if match is None:
        raise ValueError(value)
    year, month, day = (int(part) for part in match.groups())
    return datetime.date(year, month, day)  # ValueError for 2026-02-30, 0000-00-00


def parse_bool(value: Any) -> bool:
    """Return a YAML boolean, also accepting "yes"/"no" strings and 0/1."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError(value)
