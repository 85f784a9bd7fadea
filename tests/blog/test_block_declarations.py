"""Every child of the post body declares its text, and every reader of text reads it.

The cases are made from `PostBodyBlock`'s children, so a block added to the
body is checked here by name: it must declare the kind of text each field
holds (``Meta.text``), be found by search and counted by reading time, have a
Markdown writer, and come back from its Markdown as the same block. Each
block's sample is its ``Meta.preview_value``.
"""

import html
import re
from pathlib import Path

import pytest
from PIL import Image
from wagtail import blocks
from wagtail.blocks import PageChooserBlock
from wagtail.images.blocks import ImageChooserBlock

from blog.blocks import PostBodyBlock, Text, text_declaration
from blog.reading import reading_minutes
from blog.text import body_text
from vault.exporter.blocks import WRITERS, body_to_markdown
from vault.exporter.richtext import OfflineResolver
from vault.importer.assets import AssetFinder
from vault.importer.body import ImageSlot, parse_body
from vault.importer.parsed import PageSlot

BODY = PostBodyBlock()
NAMES = list(BODY.child_blocks)
READ = {Text.PROSE, Text.RICH_TEXT, Text.CODE, Text.TEX, Text.MARKDOWN}
SEARCHED = READ | {Text.LABEL}
# A callout's or footnote's marker, math delimiters, quote and emphasis marks.
_MARKDOWN_MARKUP = re.compile(r"\[!\w+\]|\[\^\w+\]:?|[$>#*_`]")
IMAGE_ID = 7
IMAGE_SRC = "images/sample.png"
# The post a note block embeds, and the file it is exported to.
PAGE_ID = 9
PAGE_FILE = "notes/sample.md"
# Put in a sample's empty prose and label fields, so that they are checked too.
FILLER = "示例 filler"


def declared(name) -> dict:
    """Return a block's declaration as {field: kind}; "" names the whole value.

    A field the block does not declare has the kind None and is taken for text,
    so that search and reading time are checked for it too.
    """
    child = BODY.child_blocks[name]
    declaration = text_declaration(child)
    if isinstance(child, blocks.StructBlock):
        kinds = dict.fromkeys(child.child_blocks)
        return kinds | (declaration if isinstance(declaration, dict) else {})
    return declaration if isinstance(declaration, dict) else {"": declaration}


def field(value, name):
    return value if name == "" else (value or {}).get(name)


def sample(name):
    """Return a block's preview value as raw stream data, its empty fields filled."""
    child = BODY.child_blocks[name]
    assert hasattr(child.meta, "preview_value"), f"{name}: give it Meta.preview_value"
    value = child.get_prep_value(child.get_preview_value())
    if isinstance(child, blocks.StructBlock):
        kinds = declared(name)
        for key, sub in child.child_blocks.items():
            if isinstance(sub, ImageChooserBlock) and value.get(key) is None:
                value[key] = IMAGE_ID
                continue
            writable = isinstance(sub, blocks.CharBlock | blocks.TextBlock)
            if writable and kinds[key] in (Text.PROSE, Text.LABEL, None):
                value[key] = value.get(key) or FILLER
    return {"type": name, "value": value}


def strings(value):
    if isinstance(value, list):
        for item in value:
            yield from strings(item)
    elif value:
        yield str(value)


@pytest.mark.parametrize("name", NAMES)
def test_every_block_declares_the_text_of_each_field(name):
    child = BODY.child_blocks[name]
    declaration = text_declaration(child)
    assert declaration is not None, f"{name} declares no text: give it Meta.text"
    kinds = declaration if isinstance(declaration, dict) else {"": declaration}
    assert all(isinstance(kind, Text) for kind in kinds.values()), (
        f"{name}: Meta.text names kinds that are not blog.blocks.Text"
    )
    if isinstance(child, blocks.StructBlock):
        assert set(kinds) == set(child.child_blocks), (
            f"{name}: Meta.text must name each field of the block once, "
            f"undeclared: {sorted(set(child.child_blocks) - set(kinds))}, "
            f"unknown: {sorted(set(kinds) - set(child.child_blocks))}"
        )
    elif isinstance(declaration, dict):
        value = sample(name)["value"]
        assert set(value) <= set(kinds), (
            f"{name}: Meta.text does not name {sorted(set(value) - set(kinds))}"
        )


@pytest.mark.parametrize("name", NAMES)
def test_search_text_holds_every_declared_text(name):
    raw = sample(name)
    text = body_text(BODY.to_python([raw]))
    searched = [
        key for key, kind in declared(name).items() if kind is None or kind in SEARCHED
    ]
    checked = 0
    for key in searched:
        for string in strings(field(raw["value"], key)):
            if declared(name)[key] is Text.MARKDOWN:
                # What Markdown shows is searched, not its markup.
                string = _MARKDOWN_MARKUP.sub(" ", string)
            words = html.unescape(re.sub(r"<[^>]*>", " ", string)).split()
            missing = [word for word in words if word not in text]
            assert not missing, (
                f"search text of {name} misses {key or 'its value'}: {missing}"
            )
            checked += len(words)
    # A block that declares searched text has some in its sample to look for.
    assert checked or not searched, f"{name}'s sample holds no text in {searched}"


@pytest.mark.parametrize("name", NAMES)
def test_reading_time_counts_what_a_reader_reads(name):
    raw = sample(name)
    reads = any(
        (kind is None or kind in READ) and any(strings(field(raw["value"], key)))
        for key, kind in declared(name).items()
    )
    # A thousand copies of any text take more than the one minute shown for none.
    minutes = reading_minutes([raw] * 1000)
    if reads:
        assert minutes > 1, f"reading time ignores {name}"
    else:
        assert minutes == 1, f"{name} declares no text to read, yet takes time"


@pytest.mark.parametrize("name", NAMES)
def test_every_block_has_a_markdown_writer(name):
    assert name in WRITERS, f"vault.exporter has no writer for {name}"


def comparable(name, value):
    """Return a raw value with what may be spelled differently normalised away."""
    out = {}
    for key, kind in declared(name).items():
        item = field(value, key)
        if kind in (Text.PROSE, Text.LABEL) and isinstance(item, str):
            item = " ".join(item.split())
        elif kind is Text.RICH_TEXT and isinstance(item, str):
            item = re.sub(r"<(/?)strong>", r"<\1b>", item)
            item = " ".join(re.sub(r"<(/?)em>", r"<\1i>", item).split())
        out[key] = item
    return out


@pytest.mark.parametrize("name", NAMES)
def test_every_block_comes_back_from_its_markdown(name, tmp_path):
    Image.new("RGB", (4, 3), (79, 124, 172)).save(_file(tmp_path, IMAGE_SRC))
    raw = sample(name)
    child = BODY.child_blocks[name]
    for key, sub in getattr(child, "child_blocks", {}).items():
        if isinstance(sub, PageChooserBlock):  # a page of the site, exported
            raw["value"][key] = PAGE_ID
    resolver = OfflineResolver(images={IMAGE_ID: IMAGE_SRC}, pages={PAGE_ID: PAGE_FILE})
    markdown = body_to_markdown([raw], resolver)
    assert markdown, f"{name} was exported as nothing: {resolver.warnings}"
    body = parse_body(markdown, base_dir=tmp_path, finder=AssetFinder(tmp_path))
    images = {
        ImageSlot(index): IMAGE_ID
        for index, image in enumerate(body.images)
        if image.path == (tmp_path / IMAGE_SRC).resolve()
    } | {
        PageSlot(index): PAGE_ID
        for index, link in enumerate(body.links)
        if link.url == PAGE_FILE.removesuffix(".md")
    }
    back = [(block.type, _with_images(block.value, images)) for block in body.blocks]
    assert [kind for kind, _ in back] == [name], (
        f"{name} came back from {markdown!r} as {back}"
    )
    assert comparable(name, back[0][1]) == comparable(name, raw["value"]), (
        f"{name} came back from {markdown!r} changed"
    )
    assert not resolver.warnings + body.warnings + body.errors


def _file(root: Path, relative: str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def _with_images(value, images):
    if isinstance(value, dict):
        return {
            key: images.get(item, item)
            if isinstance(item, ImageSlot | PageSlot)
            else item
            for key, item in value.items()
        }
    return value
