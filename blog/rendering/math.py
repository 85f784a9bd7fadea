"""Render LaTeX with KaTeX on the server, inside an embedded V8 (py_mini_racer).

Each thread gets its own V8 context with ``katex.min.js`` loaded once, lazily:
MiniRacer is not thread-safe, and loading KaTeX costs ~100 ms while a formula
costs ~1 ms. Results are memoized by content hash (``cache.memoize``).
"""

from __future__ import annotations

import atexit
import html
import json
import os
import re
import threading
from pathlib import Path

from py_mini_racer import JSTimeoutException, MiniRacer

from .cache import memoize

KATEX_DIR = Path(__file__).resolve().parents[2] / "node_modules" / "katex" / "dist"

# Longer input is refused before it reaches V8; real formulas are far shorter.
MAX_TEX_LENGTH = 20_000
# Wall-clock limit for one formula. KaTeX's maxExpand/maxSize stop macro bombs;
# this catches anything else pathological.
TIMEOUT_SECONDS = 5.0

# Options are a literal inside the wrapper so each call gets a fresh macro table:
# a \gdef in one formula must not leak into the next (results are cached, so
# rendering has to be order-independent).
_WRAPPER_JS = """
var __blogRenderMath = function (tex, displayMode, output) {
  try {
    return "ok:" + katex.renderToString(tex, {
      displayMode: displayMode,
      output: output,
      throwOnError: true,
      trust: false,
      strict: "ignore",
      maxExpand: 1000,
      maxSize: 50,
      globalGroup: false,
      macros: {}
    });
  } catch (e) {
    return "err:" + ((e && e.message) ? e.message : String(e));
  }
};
"""


# KaTeX's `output` option: HTML for the page (with MathML for screen readers), or
# MathML alone for feed readers, which drop KaTeX's CSS and would show the HTML
# spans as garbled text.
OUTPUTS = ("htmlAndMathml", "mathml")


class MathError(ValueError):
    """KaTeX rejected a formula; ``str(error)`` is KaTeX's own message."""

    def __init__(self, message: str, tex: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.tex = tex


_local = threading.local()
# Every context made, so they can be closed before the interpreter shuts down.
_racers: list[MiniRacer] = []
_racers_lock = threading.Lock()
# The process that started V8. V8's platform threads do not survive fork(), so a
# forked child must not use it: it would hang, not fail.
_v8_pid: int | None = None


def _new_racer() -> MiniRacer:
    """Return a fresh V8 context with KaTeX and our wrapper loaded."""
    script = KATEX_DIR / "katex.min.js"
    if not script.is_file():
        raise RuntimeError(
            f"KaTeX is missing ({script} not found). "
            "Run `npm ci` (or `make install`) in the project root."
        )
    source = script.read_text("utf-8")
    # Build the context on a helper thread: MiniRacer binds to the running asyncio
    # loop of the thread creating it, if any, and then refuses eval timeouts. On a
    # thread with no loop it starts its own loop thread, which is what we want.
    box: list[MiniRacer | BaseException] = []

    def build() -> None:
        try:
            racer = MiniRacer()
            racer.eval(source)
            racer.eval(_WRAPPER_JS)
            box.append(racer)
        except BaseException as exc:  # re-raised on the calling thread below
            box.append(exc)

    thread = threading.Thread(target=build, name="katex-init", daemon=True)
    thread.start()
    thread.join()
    result = box[0]
    if isinstance(result, BaseException):
        raise result
    return result


def _racer() -> MiniRacer:
    """Return this thread's KaTeX context, creating it on first use."""
    global _v8_pid
    if _v8_pid is not None and _v8_pid != os.getpid():
        raise RuntimeError(
            "KaTeX's V8 engine was started before this process was forked, and V8 "
            "cannot run in a forked child. Do not render math at import or startup "
            "time in a pre-forking server (e.g. gunicorn --preload)."
        )
    racer = getattr(_local, "racer", None)
    if racer is None:
        _v8_pid = os.getpid()
        racer = _local.racer = _new_racer()
        with _racers_lock:
            _racers.append(racer)
    return racer


@atexit.register
def _close_racers() -> None:
    """Close every V8 context while its event-loop thread still runs.

    Left to garbage collection at interpreter teardown, closing a context waits
    on a daemon thread that has already been frozen, and the process hangs.
    """
    if _v8_pid != os.getpid():
        return  # a forked child: the contexts belong to the parent's V8
    with _racers_lock:
        racers, _racers[:] = list(_racers), []
    for racer in racers:
        racer.close()


def katex_version() -> str:
    """Return the version of the KaTeX build the server renders with."""
    return str(_racer().eval("katex.version"))


# KaTeX writes a named operator used as a binary operator (``\bmod``) as
# ``<mo><mrow><mi mathvariant="normal">m</mi>…</mrow></mo>``, but ``<mo>`` may hold
# only text (HTML's MathML content model): join the letters back into the ``<mo>``.
_MO_WITH_MROW = re.compile(
    r'<mo([^>]*)><mrow>((?:<mi mathvariant="normal">[^<]*</mi>)+)</mrow></mo>'
)
_NORMAL_MI = re.compile(r'<mi mathvariant="normal">([^<]*)</mi>')


def _valid_mathml(markup: str) -> str:
    """Return KaTeX output with operator names flattened into valid ``<mo>``s."""
    return _MO_WITH_MROW.sub(
        lambda m: f"<mo{m[1]}>{''.join(_NORMAL_MI.findall(m[2]))}</mo>", markup
    )


@memoize("katex")
def _katex(tex: str, display: bool, output: str = "htmlAndMathml") -> str:
    """Return ``"ok:" + html`` or ``"err:" + KaTeX's message`` for one formula.

    KaTeX errors are results (deterministic, so worth caching); a timeout is not.
    """
    call = (
        f"__blogRenderMath({json.dumps(tex)}, {'true' if display else 'false'}, "
        f"{json.dumps(output)})"
    )
    try:
        result = _racer().eval(call, timeout_sec=TIMEOUT_SECONDS)
    except JSTimeoutException:
        # V8 terminated the script; the context stays usable for the next formula.
        raise MathError(
            f"KaTeX took longer than {TIMEOUT_SECONDS:g} s on this formula", tex
        ) from None
    return _valid_mathml(str(result))


def render_math(tex: str, display: bool = False, output: str = "htmlAndMathml") -> str:
    """Return KaTeX HTML (with MathML) for ``tex``; raise MathError if invalid.

    ``output="mathml"`` returns MathML only, for feeds.
    """
    if output not in OUTPUTS:
        raise ValueError(f"output must be one of {OUTPUTS}, not {output!r}")
    if len(tex) > MAX_TEX_LENGTH:
        raise MathError(
            f"Formula is too long ({len(tex)} characters; "
            f"the limit is {MAX_TEX_LENGTH})",
            tex,
        )
    result = _katex(tex, bool(display), output)
    if result.startswith("ok:"):
        return result[3:]
    raise MathError(result.removeprefix("err:"), tex)


def check_math(tex: str, display: bool = False) -> str | None:
    """Return KaTeX's error message for ``tex``, or None if it renders."""
    try:
        render_math(tex, display)
    except MathError as exc:
        return exc.message
    return None


def math_error_html(tex: str, message: str, display: bool = False) -> str:
    """Return the escaped fallback shown in place of a formula KaTeX rejected."""
    tag = "div" if display else "span"
    return (
        f'<{tag} class="math-error" title="{html.escape(message)}">'
        f"<code>{html.escape(tex)}</code></{tag}>"
    )


def render_math_safe(
    tex: str, display: bool = False, output: str = "htmlAndMathml"
) -> str:
    """Return KaTeX HTML for ``tex``, or an escaped fallback if it is invalid."""
    try:
        return render_math(tex, display, output)
    except MathError as exc:
        return math_error_html(tex, exc.message, display)
