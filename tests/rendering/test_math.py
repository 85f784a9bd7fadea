import json
import os
import re
import threading
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from rendering import (
    MathError,
    cache,
    check_math,
    katex_version,
    render_math,
    render_math_safe,
)
from rendering import math as math_module

KATEX_PACKAGE = Path(math_module.KATEX_DIR).parent / "package.json"


def test_inline_formula_has_katex_html_and_mathml():
    html = render_math(r"\frac{a}{b}")

    assert html.startswith('<span class="katex">')
    assert "<math" in html
    assert "<mfrac>" in html
    assert 'class="katex-html"' in html
    assert "katex-display" not in html


def test_display_mode_wraps_in_katex_display():
    html = render_math(r"\sum_{i=0}^{n} i", display=True)

    assert 'class="katex-display"' in html
    assert 'display="block"' in html


def test_aligned_environment_renders():
    tex = r"\begin{aligned} a &= b + c \\ d &= e \end{aligned}"

    html = render_math(tex, display=True)

    assert "<mtable" in html
    assert check_math(tex, display=True) is None


def test_cjk_text_inside_math_renders():
    html = render_math(r"\text{线程块} = 256")

    assert "线程块" in html


def test_invalid_formula_raises_math_error_with_katex_message():
    with pytest.raises(MathError) as info:
        render_math(r"\frac{a")

    message = str(info.value)
    assert message.startswith("KaTeX parse error:")
    assert r"\frac{a" in message
    assert "\n    at " not in message  # KaTeX's message, not a V8 stack dump
    assert info.value.tex == r"\frac{a"
    assert isinstance(info.value, ValueError)


def test_undefined_command_is_an_error():
    with pytest.raises(MathError, match="Undefined control sequence"):
        render_math(r"\notacommand{x}")


def test_check_math_returns_none_or_the_message():
    assert check_math(r"x^2 + y^2 = z^2") is None
    assert check_math(r"\frac{a").startswith("KaTeX parse error")


def test_render_math_safe_returns_escaped_fallback_with_the_source():
    tex = r"\frac{<script>alert(1)</script>"

    html = render_math_safe(tex)

    soup = BeautifulSoup(html, "html.parser")
    span = soup.find("span", class_="math-error")
    assert span is not None
    assert span.code.get_text() == tex
    assert span["title"].startswith("KaTeX parse error")
    assert "<script>" not in html
    assert soup.find("script") is None


def test_render_math_safe_uses_a_div_in_display_mode():
    html = render_math_safe(r"\frac{a", display=True)

    assert html.startswith('<div class="math-error"')
    assert html.endswith("</div>")


def test_render_math_safe_renders_valid_math_normally():
    assert render_math_safe("x") == render_math("x")


def test_href_with_javascript_url_produces_no_link():
    html = render_math(r"\href{javascript:alert(1)}{x}")

    soup = BeautifulSoup(html, "html.parser")
    assert soup.find(href=True) is None
    assert "href=" not in html


def test_url_and_html_commands_are_inert_without_trust():
    html = render_math(r"\url{https://example.com} \htmlClass{evil}{x}")

    assert "href=" not in html
    assert 'class="evil"' not in html


def test_macro_bomb_is_refused():
    with pytest.raises(MathError, match="Too many expansions"):
        render_math(r"\def\a{\a\a}\a")


def test_exponential_macro_bomb_is_refused():
    tex = r"\def\a{xx}\def\b{\a\a\a\a}\def\c{\b\b\b\b}\def\d{\c\c\c\c}" + r"\d" * 50

    with pytest.raises(MathError):
        render_math(tex)


def test_too_long_input_is_refused_without_calling_katex():
    with pytest.raises(MathError, match="too long"):
        render_math("x" * (math_module.MAX_TEX_LENGTH + 1))

    assert cache.render_count("katex") == 0


def test_definitions_do_not_leak_between_formulas():
    render_math(r"\gdef\myop{x}\myop")

    with pytest.raises(MathError, match="Undefined control sequence"):
        render_math(r"\myop")


def test_katex_version_matches_the_installed_package():
    installed = json.loads(KATEX_PACKAGE.read_text())["version"]

    assert katex_version() == installed


def test_engine_is_started_once_per_process():
    engine = math_module._get_engine()

    assert math_module._get_engine() is engine


def test_threads_share_the_engine_and_each_get_their_own_result():
    formulas = [rf"\sqrt{{{n}}}" for n in range(8)]
    results = {}

    def work(n):
        results[n] = math_module._katex.__wrapped__(formulas[n], False)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert [results[n] for n in range(8)] == [
        "ok:" + render_math(tex) for tex in formulas
    ]
    assert len(set(results.values())) == 8


def test_missing_katex_raises_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setattr(math_module, "KATEX_DIR", tmp_path)
    monkeypatch.setattr(math_module, "_engine", None)

    with pytest.raises(RuntimeError, match="npm ci"):
        render_math("x")


def test_a_render_that_times_out_is_an_error_and_not_cached(monkeypatch):
    tex = r"\sum_{i=0}^{n} \frac{a_i}{b_i}" * 50
    math_module._get_engine()
    monkeypatch.setattr(math_module, "TIMEOUT_SECONDS", 1e-6)

    with pytest.raises(MathError, match="took longer"):
        render_math(tex)

    monkeypatch.setattr(math_module, "TIMEOUT_SECONDS", 5.0)
    assert render_math(tex).startswith('<span class="katex">')
    assert cache.render_count("katex") == 1


def test_a_forked_child_refuses_to_use_the_parents_engine(monkeypatch):
    engine = math_module._get_engine()
    monkeypatch.setattr(engine, "pid", os.getpid() + 1)

    with pytest.raises(RuntimeError, match="forked"):
        render_math("x_{forked}")


def test_a_process_that_rendered_math_exits_cleanly():
    """The V8 context is closed at exit on its own thread.

    Left to teardown it could hang the process; closed from another thread it
    crashes it. Formulas come from the main thread and from a worker thread, as
    in a threaded server.
    """
    import subprocess
    import sys

    script = (
        "import threading\n"
        "from rendering import check_math, render_math\n"
        "render_math(r'\\frac{1}{2}', display=True)\n"
        "worker = threading.Thread(target=render_math, args=(r'\\sqrt{x}',))\n"
        "worker.start(); worker.join()\n"
        "assert check_math(r'\\frac{1') is not None\n"
    )
    for _ in range(5):
        done = subprocess.run(  # noqa: S603
            [sys.executable, "-c", script],
            cwd=Path(__file__).resolve().parents[2],
            timeout=60,
            check=False,
        )
        assert done.returncode == 0


def test_operator_names_are_valid_mathml():
    """`\\bmod` must not nest elements inside <mo> (the HTML checker rejects it)."""
    html = render_math(r"b = a \bmod 32", display=True)
    assert re.search(r"<mo[^>]*>mod</mo>", html)
    assert not re.search(r"<mo[^>]*><mrow>", html)
