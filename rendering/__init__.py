"""Pure rendering pipeline: KaTeX, Pygments and markdown-it, cached by content hash.

No Django here: templates, feeds, search indexing and the importer all call these
functions, and tests run them without settings or a database.
"""

from .cache import RENDERER_VERSION, RenderStore, get_store, memoize, set_store
from .diagrams import DIAGRAM_CLASS, DIAGRAM_LANGUAGE, diagram_frame
from .headings import (
    ANCHOR_MAX_LENGTH,
    HEADING_MAX_LENGTH,
    slugify_anchor,
    unique_anchors,
)
from .highlight import (
    LANGUAGE_ALIASES,
    LANGUAGES,
    code_frame,
    highlight,
    language_choices,
    normalise_language,
    parse_line_spec,
    pygments_css,
)
from .inline import (
    find_inline_math,
    inline_formulas,
    inline_math_errors,
    render_inline_html,
    render_inline_text,
)
from .markdown import (
    library_image_ids,
    markdown_formulas,
    markdown_headings,
    markdown_links,
    markdown_math_errors,
    render_markdown,
)
from .math import (
    MathError,
    check_math,
    equation_rows,
    has_tag,
    is_bound_error,
    katex_version,
    render_math,
    render_math_safe,
)

__all__ = [
    "DIAGRAM_CLASS",
    "DIAGRAM_LANGUAGE",
    "ANCHOR_MAX_LENGTH",
    "HEADING_MAX_LENGTH",
    "LANGUAGES",
    "LANGUAGE_ALIASES",
    "RENDERER_VERSION",
    "MathError",
    "RenderStore",
    "check_math",
    "code_frame",
    "diagram_frame",
    "equation_rows",
    "find_inline_math",
    "get_store",
    "has_tag",
    "highlight",
    "inline_formulas",
    "inline_math_errors",
    "is_bound_error",
    "katex_version",
    "language_choices",
    "library_image_ids",
    "markdown_formulas",
    "markdown_headings",
    "markdown_links",
    "markdown_math_errors",
    "memoize",
    "normalise_language",
    "parse_line_spec",
    "pygments_css",
    "render_inline_html",
    "render_inline_text",
    "render_markdown",
    "render_math",
    "render_math_safe",
    "set_store",
    "slugify_anchor",
    "unique_anchors",
]
