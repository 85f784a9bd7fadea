import re
import subprocess
import sys
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from pygments.lexers import get_lexer_by_name

from rendering import (
    LANGUAGE_ALIASES,
    LANGUAGES,
    cache,
    highlight,
    normalise_language,
    parse_line_spec,
    pygments_css,
)

ROOT = Path(__file__).resolve().parents[2]
CSS_FILE = ROOT / "static" / "css" / "pygments.css"
REGENERATE = "python -m rendering.highlight > static/css/pygments.css"

KERNEL = """\
__global__ void scale(float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] *= 2.0f;
}
"""


def code_lines(html: str) -> list:
    """Return the <span class="hll"> elements of highlighted code."""
    return BeautifulSoup(html, "html.parser").select("code .hll")


def test_languages_start_with_the_curated_order():
    assert LANGUAGES[:12] == [
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
    ]


def test_every_language_choice_is_a_pygments_lexer_and_listed_once():
    values = [value for value, _ in LANGUAGES]

    assert len(values) == len(set(values))
    for value in values:
        get_lexer_by_name(value)
        assert normalise_language(value) == value


def test_every_alias_points_at_a_real_lexer():
    for target in LANGUAGE_ALIASES.values():
        get_lexer_by_name(target)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("c++", "cpp"),
        ("C++", "cpp"),
        ("cc", "cpp"),
        ("cxx", "cpp"),
        ("hpp", "cpp"),
        ("cu", "cuda"),
        ("CUDA", "cuda"),
        ("sh", "bash"),
        ("shell", "bash"),
        ("zsh", "bash"),
        ("py", "python"),
        ("python3", "python"),
        ("yml", "yaml"),
        ("makefile", "make"),
        ("Makefile", "make"),
        ("txt", "text"),
        ("plain", "text"),
        ("plaintext", "text"),
        ("", "text"),
        ("  ", "text"),
        ("rs", "rust"),
        ("js", "javascript"),
        ("ts", "typescript"),
        ("ptx", "ptx"),
        ("asm", "nasm"),
        ("golang", "go"),
        ("scala", "scala"),
        ("no-such-language", "text"),
        ("<script>", "text"),
    ],
)
def test_normalise_language(name, expected):
    assert normalise_language(name) == expected


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("1,3-5, 9", [1, 3, 4, 5, 9]),
        ("", []),
        ("  ", []),
        ("7", [7]),
        ("2-2", [2]),
        ("5,1,3-4,1", [1, 3, 4, 5]),
        ("1 - 3,", [1, 2, 3]),
    ],
)
def test_parse_line_spec(spec, expected):
    assert parse_line_spec(spec) == expected


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("3-1", "写反了"),
        ("a", "不是行号"),
        ("0", "行号从 1 开始"),
        ("1-", "不是行号"),
        ("1;2", "不是行号"),
        ("-3", "不是行号"),
        ("1-999999999", "超出了上限"),
    ],
)
def test_parse_line_spec_rejects_junk_with_a_clear_message(spec, message):
    with pytest.raises(ValueError, match=message):
        parse_line_spec(spec)


def test_cuda_is_highlighted_with_css_classes():
    html = highlight(KERNEL, "cuda")

    soup = BeautifulSoup(html, "html.parser")
    wrapper = soup.find("div")
    assert wrapper["class"] == ["highlight"]
    assert wrapper.pre.code["class"] == ["language-cuda"]
    assert '<span class="kt">float</span>' in html
    assert '<span class="kr">__global__</span>' in html
    assert '<span class="nb">threadIdx</span>' in html
    assert "style=" not in html
    assert soup.code.get_text() == KERNEL


def test_language_aliases_are_applied():
    assert 'class="language-cpp"' in highlight("int x;", "c++")


def test_unknown_language_falls_back_to_escaped_text():
    html = highlight("<script>alert(1)</script>", "klingon")

    assert 'class="language-text"' in html
    assert "<script>" not in html
    assert "&lt;script&gt;" in html


def test_highlight_lines_mark_the_right_lines():
    html = highlight(KERNEL, "cuda", highlight_lines=[2, 3])

    marked = [line.get_text() for line in code_lines(html)]
    assert marked == [KERNEL.splitlines(True)[1], KERNEL.splitlines(True)[2]]


def test_highlight_lines_count_from_start_line():
    html = highlight(KERNEL, "cuda", highlight_lines=[41, 99], start_line=40)

    marked = [line.get_text() for line in code_lines(html)]
    assert marked == [KERNEL.splitlines(True)[1]]


def test_line_numbers_sit_outside_the_code():
    html = highlight(KERNEL, "cuda", line_numbers=True, start_line=40)

    soup = BeautifulSoup(html, "html.parser")
    numbers = soup.select_one("td.linenos").get_text().split()
    assert numbers == ["40", "41", "42", "43"]
    # Selecting the code cell copies code only, no numbers.
    assert soup.select_one("td.code code").get_text() == KERNEL
    assert 'class="language-cuda"' in html


def test_no_line_numbers_by_default():
    assert "linenos" not in highlight(KERNEL, "cuda")


def test_filename_is_shown_escaped():
    html = highlight("x", "text", filename="<b>gemm.cu</b>")

    assert '<span class="filename">&lt;b&gt;gemm.cu&lt;/b&gt;</span>' in html


def test_highlight_never_raises_on_odd_input():
    assert "language-text" in highlight("", "")
    assert "language-text" in highlight("x", "text", start_line=-5)


def test_highlight_is_memoized():
    highlight(KERNEL, "cuda", highlight_lines=(2,))
    highlight(KERNEL, "cu", highlight_lines=[2])

    # Different language spelling is a different call, but the same spelling
    # with a list instead of a tuple is the same.
    highlight(KERNEL, "cuda", highlight_lines=[2])
    assert cache.render_count("pygments") == 2


def test_css_has_light_and_dark_themes_scoped_to_highlight():
    css = pygments_css()

    assert ".highlight .k {" in css
    assert '[data-theme="dark"] .highlight .k {' in css
    assert "@media (prefers-color-scheme: dark) {" in css
    media = css.split("@media (prefers-color-scheme: dark) {", 1)[1]
    assert "  .highlight .k {" in media
    assert '  [data-theme="light"] .highlight .k {' in media
    # Nothing unscoped, e.g. Pygments' bare "pre { … }" rule.
    for line in css.splitlines():
        rule = line.strip()
        if rule and not rule.startswith(("/*", "@media", "}")):
            assert ".highlight" in rule, rule


def test_dark_theme_resets_properties_only_the_light_theme_sets():
    css = pygments_css()

    dark = css.split('[data-theme="dark"] .highlight, ', 1)[1]
    reset = dark.split("}", 1)[0]
    assert "font-weight: inherit" in reset
    assert "border: 0" in reset


def test_css_file_on_disk_is_up_to_date():
    assert CSS_FILE.read_text("utf-8") == pygments_css(), (
        f"{CSS_FILE.relative_to(ROOT)} is stale; regenerate it with: {REGENERATE}"
    )


def test_module_prints_the_stylesheet():
    result = subprocess.run(  # noqa: S603 - fixed command, our own interpreter
        [sys.executable, "-m", "rendering.highlight"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )

    assert result.stdout == pygments_css()


def test_dark_theme_highlighted_lines_keep_comments_readable():
    # WCAG contrast of the dark theme's comment colour on a highlighted line.
    css = pygments_css()
    dark = css[css.index('[data-theme="dark"] .highlight .hll') :]
    hll = re.search(r"\.hll \{ background-color: (#[0-9a-f]{6})", dark).group(1)
    comment = re.search(r"\.highlight \.c1 \{ color: (#[0-9a-fA-F]{6})", dark).group(1)

    def luminance(colour):
        channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
        linear = [
            c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
            for c in channels
        ]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    light, dark_ = sorted([luminance(hll), luminance(comment)], reverse=True)
    assert (light + 0.05) / (dark_ + 0.05) >= 4.5
