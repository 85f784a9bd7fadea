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

from py_mini_racer import JSEvalException, MiniRacer

from .cache import memoize, prefetch

KATEX_DIR = Path(__file__).resolve().parents[1] / "node_modules" / "katex" / "dist"

# Longer input is refused before it reaches V8; real formulas are far shorter.
MAX_TEX_LENGTH = 20_000
# The bounds on one formula's work, set from Django's settings at startup
# (`set_limits`). A few hundred characters of \\def macros stay under KaTeX's
# maxExpand yet expand to megabytes of HTML and seconds of work: the output is
# bounded in bytes, and a formula is stopped after a wall-clock time.
MAX_OUTPUT_BYTES = 200_000
TIMEOUT_SECONDS = 1.0
# KaTeX writes at least this many bytes for each node of its parse tree (a
# symbol is a span with its classes, and MathML besides), so a tree of more than
# MAX_OUTPUT_BYTES / PART_BYTES nodes cannot fit the bound: it is refused
# before it is typeset, which is most of KaTeX's time.
PART_BYTES = 20

# Options are made afresh for each parse and render: a \gdef in one formula must
# not leak into the next (results are cached, so rendering has to be
# order-independent), nor from the parse that counts parts into the render.
# `katex.__parse` is KaTeX's own parser, exposed for tests; only this module
# uses it (tests/rendering/test_math_bounds.py pins it).
_WRAPPER_JS = """
var __blogMathOptions = function (displayMode, output) {
  return {
    displayMode: displayMode,
    output: output,
    throwOnError: true,
    trust: false,
    strict: "ignore",
    maxExpand: 1000,
    maxSize: 50,
    globalGroup: false,
    macros: {}
  };
};

var __blogParts = function (tree, limit) {
  var count = 0;
  var stack = [tree];
  while (stack.length) {
    var node = stack.pop();
    if (Array.isArray(node)) {
      for (var i = 0; i < node.length; i++) stack.push(node[i]);
    } else if (node !== null && typeof node === "object") {
      if (++count > limit) return count;
      for (var key in node) {
        if (key !== "loc") stack.push(node[key]);
      }
    }
  }
  return count;
};

var __blogUtf8Bytes = function (text) {
  var bytes = text.length;
  for (var i = 0; i < text.length; i++) {
    var code = text.charCodeAt(i);
    if (code >= 0xd800 && code < 0xdc00) { bytes += 2; i++; }
    else if (code >= 0x800) bytes += 2;
    else if (code >= 0x80) bytes += 1;
  }
  return bytes;
};

var __blogRenderMath = function (tex, displayMode, output, maxBytes, maxParts) {
  try {
    if (maxParts > 0) {
      var tree = katex.__parse(tex, __blogMathOptions(displayMode, output));
      if (__blogParts(tree, maxParts) > maxParts) return "big:parts";
    }
    var html = katex.renderToString(tex, __blogMathOptions(displayMode, output));
    // Checked here, so a huge string never crosses into Python.
    if (maxBytes > 0 && (html.length > maxBytes || __blogUtf8Bytes(html) > maxBytes)) {
      return "big:bytes";
    }
    return "ok:" + html;
  } catch (e) {
    return "err:" + ((e && e.message) ? e.message : String(e));
  }
};
"""


def set_limits(
    max_output_bytes: int | None = None, timeout_seconds: float | None = None
) -> None:
    """Bound each formula's output (bytes) and time (seconds); None keeps a bound.

    A formula over the output bound is an error, cached like KaTeX's own; one
    over the time is an error too, not cached (a busy machine is slower).
    """
    global MAX_OUTPUT_BYTES, TIMEOUT_SECONDS
    if max_output_bytes is not None:
        if max_output_bytes < 1:
            raise ValueError("max_output_bytes must be at least 1")
        MAX_OUTPUT_BYTES = int(max_output_bytes)
    if timeout_seconds is not None:
        if timeout_seconds <= 0:
            raise ValueError("timeout_seconds must be more than 0")
        TIMEOUT_SECONDS = float(timeout_seconds)


def too_large_message(max_bytes: int, parts: bool = False) -> str:
    """Return the error of a formula whose output would pass ``max_bytes``."""
    if parts:
        return (
            f"Formula too large: it expands to more than {max_bytes // PART_BYTES:,} "
            "parts"
        )
    return f"Formula too large: its output would exceed {_kilobytes(max_bytes)}"


def _kilobytes(count: int) -> str:
    return f"{count / 1000:,.0f} KB" if count >= 1000 else f"{count} bytes"


def timeout_message(seconds: float) -> str:
    """Return the error of a formula KaTeX did not finish in ``seconds``."""
    return f"KaTeX took longer than {seconds:g} s on this formula"


def is_bound_error(message: str) -> bool:
    """Return whether ``message`` says a formula passed a bound, not bad LaTeX.

    Repairing its escapes would not help it, so the importer does not try.
    """
    return message.startswith(("Formula too large:", "KaTeX took longer than"))


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


def _put_off(
    tex: str,
    display: bool,
    output: str = "htmlAndMathml",
    max_bytes: int | None = None,
) -> str:
    """Return a formula's source, shown until the render budget allows KaTeX's."""
    tag = "div" if display else "span"
    return f'ok:<{tag} class="math-pending"><code>{html.escape(tex)}</code></{tag}>'


@memoize("katex", deferred=_put_off)
def _katex(
    tex: str,
    display: bool,
    output: str = "htmlAndMathml",
    max_bytes: int | None = None,
) -> str:
    """Return ``"ok:" + html`` or ``"err:" + KaTeX's message`` for one formula.

    Output past ``max_bytes`` (None: no bound) is an error. Errors are results
    (deterministic, so worth caching); a timeout is not.
    """
    call = (
        f"__blogRenderMath({json.dumps(tex)}, {'true' if display else 'false'}, "
        f"{json.dumps(output)}, {int(max_bytes or 0)}, {(max_bytes or 0) // PART_BYTES})"
    )
    try:
        result = str(_get_engine().eval(call, timeout=TIMEOUT_SECONDS))
    except JSEvalException:
        # The wrapper answers KaTeX's own errors itself: what reaches here is
        # V8 stopping the script as its time ran out (JSTimeoutException, or
        # JSTerminatedException when it stops mid-call) or at an engine limit.
        # The context stays usable for the next formula.
        raise MathError(timeout_message(TIMEOUT_SECONDS), tex) from None
    if result.startswith("big:"):
        return "err:" + too_large_message(max_bytes or 0, result == "big:parts")
    return _valid_mathml(result)


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
    result = _katex(tex, bool(display), output, MAX_OUTPUT_BYTES)
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
            (tex, bool(display), output, MAX_OUTPUT_BYTES)
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
