"""Export the page tree as folders of Markdown: the format of docs/markdown-format.md.

`richtext` and `blocks` are pure conversions (rich text and body blocks to
Markdown) that import no Django models; `tree` walks the site and writes the
files (`export_site`).
"""
