"""Parse a Markdown body as a test writes it: indented in the test, dedented here."""

import textwrap

from vault.importer.assets import AssetFinder
from vault.importer.body import parse_body


def parse(text, tmp_path=None, **kwargs):
    text = textwrap.dedent(text).lstrip("\n")
    if tmp_path is not None:
        kwargs.setdefault("base_dir", tmp_path)
        kwargs.setdefault("finder", AssetFinder(tmp_path))
    return parse_body(text, **kwargs)


def types(body):
    return [block.type for block in body.blocks]
