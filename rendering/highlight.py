"""Highlight code with Pygments: CSS classes only, a light and a dark theme.

Regenerate the stylesheet after changing the themes or upgrading Pygments::

    python -m rendering.highlight > static/css/pygments.css
"""

from __future__ import annotations

import functools
import html
import re
import sys
from collections.abc import Sequence

from pygments import highlight as pygments_highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import find_lexer_class_by_name, get_all_lexers, get_lexer_by_name
from pygments.styles import get_style_by_name
from pygments.util import ClassNotFound

from .cache import memoize

# (Pygments lexer alias, label): the languages the admin's chooser offers first.
# Every other language Pygments knows follows (see `language_choices`).
LANGUAGES: list[tuple[str, str]] = [
    ("cuda", "CUDA"),
    ("cpp", "C++"),
    ("c", "C"),
    ("python", "Python"),
    ("ptx", "PTX"),
    ("bash", "Bash/Shell"),
    ("rust", "Rust"),
    ("make", "Makefile"),
    ("sql", "SQL"),
    ("json", "JSON"),
    ("yaml", "YAML"),
    ("text", "Text"),
    ("diff", "Diff"),
    ("go", "Go"),
    ("java", "Java"),
    ("javascript", "JavaScript"),
    ("typescript", "TypeScript"),
    ("html", "HTML"),
    ("css", "CSS"),
    ("toml", "TOML"),
    ("dockerfile", "Dockerfile"),
    ("cmake", "CMake"),
    ("llvm", "LLVM IR"),
    ("nasm", "x86 assembly (NASM)"),
    ("gas", "Assembly (GNU as)"),
    ("lua", "Lua"),
    ("haskell", "Haskell"),
    ("markdown", "Markdown"),
    ("console", "Console session"),
    ("ini", "INI"),
]

# Names authors write after ``` that Pygments lacks or maps differently.
LANGUAGE_ALIASES: dict[str, str] = {
    "": "text",
    "c++": "cpp",
    "cpp": "cpp",
    "cc": "cpp",
    "cxx": "cpp",
    "hpp": "cpp",
    "hxx": "cpp",
    "h++": "cpp",
    "cu": "cuda",
    "cuh": "cuda",
    "cuda": "cuda",
    "h": "c",
    "sh": "bash",
    "shell": "bash",
    "bash": "bash",
    "zsh": "bash",
    "ksh": "bash",
    "py": "python",
    "py3": "python",
    "python3": "python",
    "yml": "yaml",
    "makefile": "make",
    "make": "make",
    "mk": "make",
    "txt": "text",
    "plain": "text",
    "plaintext": "text",
    "none": "text",
    "rs": "rust",
    "js": "javascript",
    "mjs": "javascript",
    "ts": "typescript",
    "ptx": "ptx",
    "asm": "nasm",
    "x86asm": "nasm",
    "s": "gas",
    "golang": "go",
    "docker": "dockerfile",
    "md": "markdown",
    "ll": "llvm",
    "llvm-ir": "llvm",
    "hs": "haskell",
    "patch": "diff",
    "jsonc": "json",
    "json5": "json",
    "htm": "html",
    "cfg": "ini",
    "conf": "ini",
    "terminal": "console",
    "shell-session": "console",
    "shellsession": "console",
}

MAX_LINE_NUMBER = 100_000

LIGHT_STYLE = "default"
DARK_STYLE = "github-dark"
# github-dark marks highlighted lines in the grey of its comments, which then
# vanish (contrast 1.5); this blue keeps every comment at 4.5:1 or more.
DARK_HIGHLIGHT = "#1c2b3a"


@functools.cache
def _lexer_aliases() -> dict[str, tuple[str, tuple[str, ...]]]:
    """Return {first alias: (name, aliases)} for every lexer Pygments ships."""
    return {
        aliases[0]: (name, tuple(aliases))
        for name, aliases, _, _ in get_all_lexers(plugins=False)
        if aliases
    }


@functools.cache
def language_choices() -> list[tuple[str, str]]:
    """Return (alias, label) for every language: LANGUAGES, then Pygments' others.

    Each Pygments lexer appears once, under its curated alias or else its first
    one; the others are sorted by name.
    """
    curated = {find_lexer_class_by_name(alias).name for alias, _ in LANGUAGES}
    rest = sorted(
        (
            (first, name)
            for first, (name, _) in _lexer_aliases().items()
            if name not in curated
        ),
        key=lambda item: (item[1].casefold(), item[0]),
    )
    return [*LANGUAGES, *rest]


@functools.cache
def _choice_by_alias() -> dict[str, str]:
    """Return the `language_choices` value for every alias Pygments knows."""
    curated = {find_lexer_class_by_name(alias).name: alias for alias, _ in LANGUAGES}
    choice: dict[str, str] = {}
    for first, (name, aliases) in _lexer_aliases().items():
        for alias in aliases:
            choice.setdefault(alias.lower(), curated.get(name, first))
    return choice


@functools.lru_cache(maxsize=512)
def normalise_language(name: str) -> str:
    """Return the language choice to use for a language name an author wrote.

    Known shorthands map through LANGUAGE_ALIASES; any other name or alias
    Pygments knows maps to its lexer's entry in `language_choices` (``cypher`` and
    ``thrift`` are kept, ``py2`` gives ``python2``); anything else is ``text``.
    """
    key = name.strip().lower().lstrip(".")
    if key in LANGUAGE_ALIASES:
        return LANGUAGE_ALIASES[key]
    return _choice_by_alias().get(key, "text")


_LINE_ITEM = re.compile(r"(\d+)(?:\s*-\s*(\d+))?")


def parse_line_spec(spec: str) -> list[int]:
    """Return the sorted line numbers in a spec such as ``"1,3-5, 9"``.

    Raise ValueError with a message fit for a form error on anything else.
    """
    lines: set[int] = set()
    for raw in spec.split(","):
        item = raw.strip()
        if not item:
            continue
        match = _LINE_ITEM.fullmatch(item)
        if match is None:
            raise ValueError(f"“{item}”不是行号或行号范围；请写成 1,3-5,9 这样")
        first = int(match.group(1))
        last = int(match.group(2) or first)
        if first < 1:
            raise ValueError(f"行号从 1 开始，不能是 {first}")
        if last < first:
            raise ValueError(f"范围“{item}”写反了；请写成 {last}-{first}")
        if last > MAX_LINE_NUMBER:
            raise ValueError(f"第 {last} 行超出了上限 {MAX_LINE_NUMBER}")
        lines.update(range(first, last + 1))
    return sorted(lines)


def _put_off(code: str, language: str, **options) -> str:
    """Return the code unhighlighted, shown until the render budget allows Pygments."""
    return f'<div class="highlight"><pre><code>{html.escape(code)}</code></pre></div>'


@memoize("pygments", deferred=_put_off)
def highlight(
    code: str,
    language: str,
    *,
    highlight_lines: Sequence[int] = (),
    line_numbers: bool = False,
    start_line: int = 1,
    filename: str = "",
    inline_styles: bool = False,
) -> str:
    """Return ``code`` as highlighted HTML; unknown languages come out as text.

    ``highlight_lines`` are the numbers a reader sees, so they count from
    ``start_line`` (with the default start of 1, the first line is 1). Never raise.
    ``inline_styles`` puts the light theme's colours in ``style`` attributes
    instead of classes, for feed readers, which drop our stylesheet.
    """
    alias = normalise_language(language)
    try:
        # Keep leading blank lines, so line numbers match the source as written.
        lexer = get_lexer_by_name(alias, stripnl=False)
    except ClassNotFound:  # a name normalise_language saw may still fail to load
        alias = "text"
        lexer = get_lexer_by_name(alias, stripnl=False)
    start_line = max(int(start_line), 1)
    hl_lines = sorted({n - start_line + 1 for n in highlight_lines if n >= start_line})
    formatter = HtmlFormatter(
        cssclass="highlight",
        wrapcode=True,
        hl_lines=hl_lines,
        # Table line numbers sit in their own cell, so selecting the code copies
        # only code; inline numbers would be copied with every line.
        linenos="table" if line_numbers else False,
        linenostart=start_line,
        filename=filename,
        noclasses=inline_styles,
        style=LIGHT_STYLE,
    )
    rendered = pygments_highlight(code, lexer, formatter)
    # Pygments' <code> has no class; the first one is the code (line numbers in
    # table mode are a plain <pre>), and code text is escaped so cannot contain it.
    return rendered.replace(
        "<code>", f'<code class="language-{html.escape(alias)}">', 1
    )


@functools.cache
def language_label(language: str) -> str:
    """Return the name readers see for a language (``cuda`` gives ``CUDA``)."""
    return dict(language_choices()).get(language, language)


def code_frame(
    code: str,
    language: str,
    *,
    filename: str = "",
    inline_styles: bool = False,
    **options,
) -> str:
    """Return code in the frame every code on the site has: language, file, code.

    The code block and Markdown's fenced code both use it, so both get the
    language label, line numbers and the copy button (static/js/site.js). Other
    ``options`` go to ``highlight``.
    """
    choice = normalise_language(language) if language else "text"
    caption = (
        f'<span class="code-language">{html.escape(language_label(choice))}</span>'
    )
    if filename:
        caption += f'<span class="code-filename">{html.escape(filename)}</span>'
    body = highlight(code, language or "text", inline_styles=inline_styles, **options)
    return (
        f'<figure class="block-code" data-language="{html.escape(choice)}">\n'
        f'    <figcaption class="code-caption">{caption}</figcaption>\n'
        f"    {body}\n</figure>\n"
    )


# Reset what a token rule of the other theme may have set, at the same specificity
# as token rules and before them: with overlapping scopes (a dark theme overriding
# the light one), a property only the light theme sets, such as bold keywords or
# a red border on errors, would otherwise leak into the dark theme.
_RESET = (
    "color: inherit; background-color: transparent; font-weight: inherit; "
    "font-style: inherit; text-decoration: inherit; border: 0"
)


def _style(name: str):
    """Return the Pygments style ``name``, the dark one with a readable highlight."""
    style = get_style_by_name(name)
    if name != DARK_STYLE:
        return style
    return type("DarkStyle", (style,), {"highlight_color": DARK_HIGHLIGHT})


def _theme_css(style: str, scope: str, *, reset: bool) -> list[str]:
    """Return the rules of Pygments ``style`` confined to ``scope``."""
    formatter = HtmlFormatter(style=_style(style), cssclass="highlight")
    rules = []
    if reset:
        rules.append(f"{scope}, {scope} [class] {{ {_RESET} }}")
    rules += [f"{scope} {rule}" for rule in formatter.get_linenos_style_defs()]
    rules += formatter.get_background_style_defs(scope)
    rules += formatter.get_token_style_defs(scope)
    return rules


def pygments_css() -> str:
    """Return the code stylesheet: light by default, dark by system or toggle.

    ``[data-theme="dark"]`` / ``[data-theme="light"]`` on an ancestor (normally
    ``<html>``) override the system preference.
    """
    indent = "  "
    parts = [
        f"/* Generated by `python -m rendering.highlight`; do not edit. */\n"
        f"/* Light: {LIGHT_STYLE}; dark: {DARK_STYLE}. */",
        *_theme_css(LIGHT_STYLE, ".highlight", reset=False),
        *_theme_css(DARK_STYLE, '[data-theme="dark"] .highlight', reset=True),
        "@media (prefers-color-scheme: dark) {",
        *(
            indent + rule
            for rule in _theme_css(DARK_STYLE, ".highlight", reset=True)
            + _theme_css(LIGHT_STYLE, '[data-theme="light"] .highlight', reset=True)
        ),
        "}",
    ]
    return "\n".join(parts) + "\n"


if __name__ == "__main__":
    sys.stdout.write(pygments_css())
