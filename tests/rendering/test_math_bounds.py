"""Each formula's output and time are bounded: a \\def bomb is an error, fast."""

import time
from pathlib import Path

import pytest

from rendering import MathError, cache, render_math, render_math_safe
from rendering import math as math_module
from rendering.markdown import markdown_formulas
from tests.math_bombs import MACRO_BOMB, macro_bomb

DEMO = Path(__file__).resolve().parents[2] / "vault" / "demo" / "content"


def demo_formulas() -> list[tuple[str, bool]]:
    """Return every formula of the demo posts: the author's real ones."""
    found = {}
    for path in sorted(DEMO.rglob("*.md")):
        for formula in markdown_formulas(path.read_text("utf-8")):
            found[formula] = None
    return list(found)


def test_a_macro_bomb_is_refused_in_milliseconds_naming_the_bound():
    math_module._get_engine()  # started, so its start is not timed
    start = time.perf_counter()

    with pytest.raises(MathError, match="Formula too large") as info:
        render_math(MACRO_BOMB, display=True)

    assert time.perf_counter() - start < 0.5
    assert info.value.tex == MACRO_BOMB


def test_a_refused_bomb_is_kept_as_an_error_and_not_typeset_again():
    for _ in range(2):
        with pytest.raises(MathError, match="Formula too large"):
            render_math(MACRO_BOMB, display=True)

    assert cache.render_count("katex") == 1
    assert cache.hit_count("katex") == 1


def test_a_refused_bomb_shows_its_source_escaped():
    html = render_math_safe(MACRO_BOMB + "<b>", display=True)

    assert len(html) < 1000
    assert 'class="math-error"' in html
    assert r"\def\a{\frac" in html
    assert "&lt;b&gt;" in html


def test_output_past_the_byte_bound_is_an_error_naming_it(monkeypatch):
    # A real formula of about 18 KB of HTML, against a bound of 10 KB.
    tex, display = max(
        demo_formulas(), key=lambda f: len(render_math(f[0], f[1]).encode())
    )
    monkeypatch.setattr(math_module, "MAX_OUTPUT_BYTES", 10_000)

    with pytest.raises(MathError, match="its output would exceed 10 KB"):
        render_math(tex, display)


def test_a_stretchy_bomb_under_the_parts_bound_is_refused_by_its_bytes():
    leaf = r"\overbrace{abcdefghijkl}" * 8
    tex = r"\def\a{" + leaf + r"}\def\b{\a\a\a\a\a\a\a\a\a}\def\c{\b\b\b\b\b\b\b\b\b}\c"
    math_module._get_engine()
    start = time.perf_counter()

    with pytest.raises(MathError, match="its output would exceed 200 KB"):
        render_math(tex, display=True)

    assert time.perf_counter() - start < 0.5


def test_every_demo_formula_fits_well_within_the_bounds():
    formulas = demo_formulas()

    sizes = [len(render_math(tex, display).encode()) for tex, display in formulas]

    assert len(formulas) > 100
    assert max(sizes) < math_module.MAX_OUTPUT_BYTES / 5


def test_a_formula_past_the_time_bound_is_an_error_and_not_kept(monkeypatch):
    # With no output bound the bomb is typeset, which takes seconds.
    tex = macro_bomb(mark="t")
    monkeypatch.setattr(math_module, "MAX_OUTPUT_BYTES", 10**10)
    monkeypatch.setattr(math_module, "TIMEOUT_SECONDS", 0.05)
    math_module._get_engine()

    for _ in range(2):
        start = time.perf_counter()
        with pytest.raises(MathError, match=r"took longer than 0\.05 s"):
            render_math(tex, display=True)
        assert time.perf_counter() - start < 0.5

    # A busy machine is slower: a time-out is tried again next time.
    assert cache.render_count("katex") == 0
    assert render_math(r"\sqrt{2}").startswith('<span class="katex">')


def test_the_bound_is_part_of_a_cached_result(monkeypatch):
    tex = r"\begin{aligned}" + r"a_{ij} &= \frac{b_i}{c_j} \\" * 20 + r"\end{aligned}"
    assert render_math(tex, display=True)

    monkeypatch.setattr(math_module, "MAX_OUTPUT_BYTES", 5_000)

    with pytest.raises(MathError, match="Formula too large"):
        render_math(tex, display=True)


def test_the_bounds_are_set_once_for_the_process():
    before = math_module.MAX_OUTPUT_BYTES, math_module.TIMEOUT_SECONDS
    try:
        math_module.set_limits(max_output_bytes=1234, timeout_seconds=0.5)
        assert (math_module.MAX_OUTPUT_BYTES, math_module.TIMEOUT_SECONDS) == (
            1234,
            0.5,
        )
        with pytest.raises(ValueError):
            math_module.set_limits(max_output_bytes=0)
    finally:
        math_module.set_limits(*before)
