"""Render LaTeX with KaTeX on the server, inside an embedded V8 (py_mini_racer).

One V8 context per process, with ``katex.min.js`` loaded once, lazily (loading
KaTeX costs ~100 ms while a formula costs ~1 ms), owned by a thread of its own
that every caller hands its formulas to (``_Engine``). Results are memoized by
content hash (``cache.memoize``).
"""

from __future__ import annotations

import atexit
import html
import json
import os
import queue
import re
import threading
from collections.abc import Iterable
from concurrent.futures import Future
from pathlib import Path

from py_mini_racer import JSTimeoutException, MiniRacer

from .cache import memoize, prefetch

KATEX_DIR = Path(__file__).resolve().parents[1] / "node_modules" / "katex" / "dist"

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


class _Engine:
    """A V8 context with KaTeX loaded, owned by one thread that runs every call.

    V8 crashes the process (a segfault) when a context is closed by a thread
    other than the one that made it, and hangs it when the context is left to
    garbage collection at interpreter teardown. So the context is created, used
    and closed on its own thread; callers hand it scripts through a queue. A
    formula costs ~1 ms and results are cached, so one engine per process is
    enough, and it keeps memory to a single V8 heap however many threads serve.
    """

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        # Guards `_closed` and the queue, so no job is queued once the thread
        # has stopped taking them (its caller would wait forever).
        self._lock = threading.Lock()
        self._closed = False
        # V8's platform threads do not survive fork(), so a forked child must not
        # use its parent's engine: it would hang, not fail.
        self.pid = os.getpid()
        ready: Future[None] = Future()
        self._thread = threading.Thread(
            target=self._run, args=(ready,), name="katex", daemon=True
        )
        self._thread.start()
        ready.result()  # Re-raise a failure to build the context here.

    def _run(self, ready: Future[None]) -> None:
        try:
            racer = _new_racer()
        except BaseException as exc:  # handed to the thread that asked
            self._closed = True
            ready.set_exception(exc)
            return
        ready.set_result(None)
        try:
            while (job := self._jobs.get()) is not None:
                future, script, timeout = job
                try:
                    future.set_result(racer.eval(script, timeout_sec=timeout))
                except BaseException as exc:  # handed to the caller
                    future.set_exception(exc)
        finally:
            with self._lock:
                self._closed = True
            while not self._jobs.empty():
                if (job := self._jobs.get()) is not None:
                    job[0].set_exception(RuntimeError("KaTeX's engine was closed"))
            racer.close()

    def eval(self, script: str, timeout: float | None = None):
        """Run a script in the engine's context and return its result."""
        future: Future = Future()
        with self._lock:
            if self._closed:
                raise RuntimeError("KaTeX's engine was closed")
            self._jobs.put((future, script, timeout))
        return future.result()

    def close(self) -> None:
        """Close the context on its own thread and wait for it."""
        with self._lock:
            if not self._closed:
                self._jobs.put(None)
        self._thread.join(timeout=10)


def _new_racer() -> MiniRacer:
    """Return a fresh V8 context with KaTeX and our wrapper loaded."""
    script = KATEX_DIR / "katex.min.js"
    if not script.is_file():
        raise RuntimeError(
            f"KaTeX is missing ({script} not found). "
            "Run `npm ci` (or `make install`) in the project root."
        )
    # Made on the engine's thread, which runs no asyncio loop: MiniRacer binds to
    # the running loop of the thread creating it, if any, and then refuses eval
    # timeouts. On a thread with no loop it starts its own loop thread.
    racer = MiniRacer()
    racer.eval(script.read_text("utf-8"))
    racer.eval(_WRAPPER_JS)
    return racer


_engine: _Engine | None = None
_engine_lock = threading.Lock()


def _get_engine() -> _Engine:
    """Return this process's KaTeX engine, starting it on first use."""
    global _engine
    if _engine is not None and _engine.pid != os.getpid():
        raise RuntimeError(
            "KaTeX's V8 engine was started before this process was forked, and V8 "
            "cannot run in a forked child. Do not render math at import or startup "
            "time in a pre-forking server (e.g. gunicorn --preload)."
        )
    with _engine_lock:
        if _engine is None:
            _engine = _Engine()
        return _engine


@atexit.register
def _close_engine() -> None:
    """Close the engine while its thread still runs (atexit runs before teardown)."""
    global _engine
    with _engine_lock:
        engine, _engine = _engine, None
    # In a forked child the context belongs to the parent's V8: leave it be.
    if engine is not None and engine.pid == os.getpid():
        engine.close()


def katex_version() -> str:
    """Return the version of the KaTeX build the server renders with."""
    return str(_get_engine().eval("katex.version"))


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


def _put_off(tex: str, display: bool, output: str = "htmlAndMathml") -> str:
    """Return a formula's source, shown until the render budget allows KaTeX's."""
    tag = "div" if display else "span"
    return f'ok:<{tag} class="math-pending"><code>{html.escape(tex)}</code></{tag}>'


@memoize("katex", deferred=_put_off)
def _katex(tex: str, display: bool, output: str = "htmlAndMathml") -> str:
    """Return ``"ok:" + html`` or ``"err:" + KaTeX's message`` for one formula.

    KaTeX errors are results (deterministic, so worth caching); a timeout is not.
    """
    call = (
        f"__blogRenderMath({json.dumps(tex)}, {'true' if display else 'false'}, "
        f"{json.dumps(output)})"
    )
    try:
        result = _get_engine().eval(call, timeout=TIMEOUT_SECONDS)
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


def prefetch_math(
    formulas: Iterable[tuple[str, bool]], output: str = "htmlAndMathml"
) -> None:
    """Read the cached renders of ``(tex, display)`` formulas in one round trip.

    Use inside ``cache.batch()``, before rendering them one by one.
    """
    prefetch(
        _katex,
        (
            (tex, bool(display), output)
            for tex, display in formulas
            if len(tex) <= MAX_TEX_LENGTH
        ),
    )


def check_math(tex: str, display: bool = False) -> str | None:
    """Return KaTeX's error message for ``tex``, or None if it renders."""
    try:
        render_math(tex, display)
    except MathError as exc:
        return exc.message
    return None


# \tag{…} or \tag*{…}: the formula carries its own number, which KaTeX shows.
_TAG = re.compile(r"\\tag\*?\s*\{")
# Environments KaTeX numbers itself (equation, align, gather…) need \begin.
_ENVIRONMENT = re.compile(r"\\begin\s*\{")


def has_tag(tex: str) -> bool:
    """Return whether display ``tex`` gives its own number with ``\\tag``."""
    return bool(_TAG.search(tex))


def equation_rows(tex: str) -> int:
    """Return how many rows of display ``tex`` KaTeX numbers by itself.

    ``\\begin{equation}`` and ``{align}``/``{gather}`` rows get a number from
    a CSS counter (``katexEqnNo``) that runs through the page; automatic block
    numbers count them so the two never repeat a number.
    """
    if not _ENVIRONMENT.search(tex):
        return 0
    return render_math_safe(tex, True).count('class="eqn-num"')


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
