"""What every body block shares: the text kinds it declares, and the helpers.

A block declares its text in ``Meta.text``: one `Text` kind for a block whose
value is one piece of text (rich text, Markdown, a URL), or a mapping from each
field of its value to its kind for a block whose value is a dict (every child
of a StructBlock; the keys of a table). Search text, reading time and the
Markdown round trip read that declaration, never a list of block types
(`blog.text.body_pieces`; ``tests/blog/test_block_declarations.py`` checks
every child of the body).
"""

import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from enum import StrEnum

from django import forms
from django.core.exceptions import ValidationError
from django.utils.functional import cached_property
from django.utils.safestring import mark_safe
from wagtail import blocks
from wagtail.images import get_image_model

from blog.widgets import CodeEditor
from rendering import inline_math_errors, render_inline_text
from rendering.math_messages import chinese_math_error


class Text(StrEnum):
    """The kind of text a field of a block holds."""

    # Plain text a reader reads; it may hold inline math, $…$ or \(…\).
    PROSE = "prose"
    # Wagtail rich text (HTML), read as prose.
    RICH_TEXT = "rich_text"
    # Source code: searched, skimmed by line.
    CODE = "code"
    # Display math (TeX without delimiters): searched, glanced at as one formula.
    TEX = "tex"
    # Markdown source: prose, with fenced code counted as code.
    MARKDOWN = "markdown"
    # Searched but not read through: alt text, an equation's number.
    LABEL = "label"
    # No text: choices, ids, sizes, switches, URLs, source markup.
    NONE = "none"


def text_declaration(block) -> Text | dict[str, Text] | None:
    """Return a block's ``Meta.text``, or None when it declares none."""
    return getattr(block.meta, "text", None)


def public_paths(*classes) -> dict[type, str]:
    """Return `DECONSTRUCT_ALIASES` naming each class by ``blog.blocks.<Name>``.

    Migrations refer to a block by its path; the package re-exports every
    block, so a block keeps its path when it moves between the modules.
    """
    return {cls: f"blog.blocks.{cls.__name__}" for cls in classes}


RICH_TEXT_FEATURES = [
    "bold",
    "italic",
    "code",
    "link",
    "document-link",
    "ol",
    "ul",
    "superscript",
    "subscript",
    "strikethrough",
    "mark",
]

CALLOUT_KINDS = [
    ("note", "注意 Note"),
    ("tip", "提示 Tip"),
    ("info", "信息 Info"),
    ("warning", "警告 Warning"),
    ("danger", "危险 Danger"),
]

# Groups of the block chooser. A table sits with text: its cells are prose with
# inline math, like a paragraph's, not code or display math.
GROUP_TEXT = "文本"
GROUP_CODE = "代码与公式"
GROUP_MEDIA = "媒体"

# A library image in an HTML figure: ``<img src="image:42">``.
_FIGURE_IMAGE = re.compile(r"""(\bsrc\s*=\s*["']?)image:(\d+)""", re.I)

MATH_HELP = "行内公式写作 $…$ 或 \\(…\\)；字面的美元符号写作 \\$。"


def is_feed(context) -> bool:
    """Return True when rendering for a feed (``{"feed": True}`` in the context).

    Feed readers drop our CSS: math goes out as MathML only, code inline-styled.
    """
    return bool((context or {}).get("feed"))


def math_output(context) -> str:
    """Return KaTeX's output option for this render."""
    return "mathml" if is_feed(context) else "htmlAndMathml"


def inline_html(text: str | None, context=None):
    """Return plain text as HTML with its inline math typeset.

    Safe to mark: the renderer escapes everything that is not KaTeX output.
    """
    return mark_safe(render_inline_text(text or "", math_output(context)))  # noqa: S308


_math_errors_allowed: ContextVar[bool] = ContextVar(
    "math_errors_allowed", default=False
)


@contextmanager
def math_errors_allowed() -> Iterator[None]:
    """Let formulas KaTeX rejects pass block validation inside the block.

    For the Markdown import, which keeps such a formula (shown as KaTeX shows
    errors) and warns; an editor saving the block in the admin is still refused.
    """
    token = _math_errors_allowed.set(True)
    try:
        yield
    finally:
        _math_errors_allowed.reset(token)


def checking_math() -> bool:
    """Return False inside `math_errors_allowed()`."""
    return not _math_errors_allowed.get()


def raise_math_errors(find: Callable[[], list[str]]) -> None:
    """Raise the KaTeX error messages ``find()`` gives as one ValidationError.

    Inside `math_errors_allowed()` the formulas are not even checked.
    """
    if checking_math() and (messages := find()):
        raise ValidationError(math_error_text(messages))


def math_error_text(messages: list[str]) -> str:
    """Return KaTeX's messages as one Chinese error for the editor."""
    return "；".join(chinese_math_error(message) for message in messages)


class InlineMathFieldsMixin:
    """A StructBlock whose plain-text `inline_math_fields` may hold inline math.

    On save each field's KaTeX errors show under the field; the template gets
    the typeset field as `<name>_html`.
    """

    inline_math_fields: tuple[str, ...] = ()

    def clean(self, value):
        value = super().clean(value)
        errors = {
            name: ValidationError(math_error_text(messages))
            for name in self.inline_math_fields
            if checking_math()
            and (messages := inline_math_errors(value.get(name) or ""))
        }
        if errors:
            raise blocks.StructBlockValidationError(errors)
        return value

    def get_context(self, value, parent_context=None):
        context = super().get_context(value, parent_context=parent_context)
        for name in self.inline_math_fields:
            context[f"{name}_html"] = inline_html(value.get(name), parent_context)
        return context


class CodeTextBlock(blocks.TextBlock):
    """A text area that keeps leading and trailing spaces: indentation is code.

    Given ``language_field``, the name of a sibling choice of languages in the
    same StructBlock, the admin edits it in a code editor coloured for that
    language (blog/widgets.py).
    """

    def __init__(self, language_field=None, **kwargs):
        self.language_field = language_field
        super().__init__(**kwargs)
        self.field_options["strip"] = False

    @cached_property
    def field(self):
        if self.language_field is None:
            return super().field
        widget = CodeEditor(
            attrs={"rows": self.rows}, language_field=self.language_field
        )
        return forms.CharField(widget=widget, **self.field_options)

    def value_from_form(self, value):
        # Browsers post a textarea's line breaks as CR LF; code keeps LF.
        return value.replace("\r\n", "\n") if isinstance(value, str) else value


DECONSTRUCT_ALIASES = public_paths(CodeTextBlock)


def figure_image_ids(markup: str) -> list[int]:
    """Return the ids of the library images HTML shows (``<img src="image:ID">``)."""
    return sorted({int(match.group(2)) for match in _FIGURE_IMAGE.finditer(markup)})


def with_figure_images(markup: str, images: dict[str, tuple[str, int, int]]) -> str:
    """Return HTML with each ``src="image:ID"`` the URL of that library image."""

    def replace(match: re.Match) -> str:
        found = images.get(match.group(2))
        return match.group(0) if found is None else match.group(1) + found[0]

    return _FIGURE_IMAGE.sub(replace, markup)


def shown_images(
    ids: Iterable[int], parent_context: dict
) -> dict[str, tuple[str, int, int]]:
    """Return the library images of ``ids``, from those the body looked up."""
    given = parent_context.get("library_images")
    if given is None:  # the block alone (a preview): look them up
        return library_images(ids)
    return {str(pk): given[str(pk)] for pk in ids if str(pk) in given}


def library_images(ids: Iterable[int]) -> dict[str, tuple[str, int, int]]:
    """Return (url, width, height) by id for library images Markdown or HTML shows.

    The original file, as such an image has no sizes to choose renditions by.
    """
    ids = sorted(set(ids))
    if not ids:
        return {}
    images = get_image_model().objects.filter(pk__in=ids)
    return {
        str(image.pk): (image.file.url, image.width, image.height) for image in images
    }
