import threading

import pygments
import pytest

from rendering import (
    cache,
    render_inline_html,
    render_inline_text,
    render_markdown,
    render_math,
)
from rendering.math import katex_version, prefetch_math


class DictStore:
    """A store shaped like Django's cache API, recording what it was asked."""

    def __init__(self):
        self.data = {}
        self.sets = []

    def get(self, key, default=None):
        return self.data.get(key, default)

    def set(self, key, value, timeout=None):
        self.sets.append(key)
        self.data[key] = value


class BrokenStore:
    """A store whose backend is down."""

    def get(self, key, default=None):
        raise ConnectionError("cache is down")

    def set(self, key, value, timeout=None):
        raise ConnectionError("cache is down")


def make_counted(namespace="t"):
    calls = []

    @cache.memoize(namespace)
    def shout(text: str, times: int = 1, *, sep: str = " ") -> str:
        calls.append(text)
        return sep.join([text.upper()] * times)

    return shout, calls


def test_second_call_with_same_input_is_served_from_the_store():
    shout, calls = make_counted()

    assert shout("hi") == "HI"
    assert shout("hi") == "HI"

    assert calls == ["hi"]
    assert cache.render_count("t") == 1
    assert cache.hit_count("t") == 1


def test_different_input_is_rendered():
    shout, calls = make_counted()

    shout("hi")
    shout("ho")
    shout("hi", 2)

    assert calls == ["hi", "ho", "hi"]
    assert cache.render_count("t") == 3


def test_positional_keyword_and_default_arguments_share_one_entry():
    shout, calls = make_counted()

    shout("hi")
    shout("hi", 1)
    shout("hi", times=1)
    shout(text="hi", sep=" ")

    assert calls == ["hi"]


def test_every_argument_in_order_shares_the_entry_of_a_bound_call():
    # A call giving each argument in order takes a shortcut past binding;
    # its key must be the one binding gives.
    calls = []

    @cache.memoize("p")
    def repeat(text: str, times: int = 1) -> str:
        calls.append((text, times))
        return text * times

    assert repeat("ab", 2) == "abab"
    assert repeat("ab", times=2) == "abab"
    assert repeat(text="ab", times=2) == "abab"
    assert repeat("ab", 1) == "ab"
    assert repeat("ab") == "ab"

    assert calls == [("ab", 2), ("ab", 1)]
    assert repeat.cache_key("ab", 2) == repeat.cache_key("ab", times=2)
    assert repeat.cache_key("ab", 2) != repeat.cache_key("ab", 3)


def test_exceptions_propagate_and_are_not_cached():
    calls = []

    @cache.memoize("boom")
    def boom(text: str) -> str:
        calls.append(text)
        raise ValueError(text)

    for _ in range(2):
        with pytest.raises(ValueError, match="x"):
            boom("x")

    assert calls == ["x", "x"]
    assert cache.render_count("boom") == 0


def test_key_holds_namespace_and_renderer_version(fresh_store):
    store = DictStore()
    shout, _ = make_counted("ns")

    with cache.use_store(store):
        shout("hi")

    (key,) = store.data
    namespace, version, digest = key.split(":")
    assert namespace == "ns"
    assert version == cache.RENDERER_VERSION
    assert len(digest) == 64
    assert " " not in key  # memcached rejects keys with spaces


def test_renderer_version_changes_with_katex_and_pygments():
    assert f"katex{katex_version()}" in cache.RENDERER_VERSION
    assert f"pygments{pygments.__version__}" in cache.RENDERER_VERSION
    assert f"s{cache.SCHEMA}" in cache.RENDERER_VERSION


def test_unchanged_formula_is_never_rendered_twice():
    first = render_math(r"\frac{a}{b}")
    second = render_math(r"\frac{a}{b}")

    assert first == second
    assert cache.render_count("katex") == 1


def test_unchanged_markdown_is_never_rendered_twice():
    text = "Euler: $e^{i\\pi}+1=0$ and $$\\sum_i x_i$$\n\n```cuda\nint x;\n```\n"

    first = render_markdown(text)
    katex_renders = cache.render_count("katex")
    second = render_markdown(text)

    assert first == second
    assert cache.render_count("markdown") == 1
    assert cache.render_count("katex") == katex_renders == 2
    assert cache.render_count("pygments") == 1


def test_editing_one_formula_rerenders_only_that_formula():
    render_markdown("$a^2$ and $b^2$")
    katex_before = cache.render_count("katex")

    render_markdown("$a^2$ and $c^2$")

    assert cache.render_count("markdown") == 2
    assert cache.render_count("katex") == katex_before + 1


def test_a_django_cache_object_works_as_the_store():
    from django.core.cache.backends.locmem import LocMemCache

    store = LocMemCache("renders-test", {"TIMEOUT": None})
    shout, calls = make_counted()

    with cache.use_store(store):
        shout("hi")
        shout("hi")

    assert calls == ["hi"]


def test_set_store_plugs_in_another_store_and_none_restores_the_default():
    store = DictStore()
    shout, _ = make_counted()
    previous = cache.get_store()
    try:
        cache.set_store(store)
        assert cache.get_store() is store
        shout("hi")
        assert len(store.sets) == 1
        cache.set_store(None)
        assert isinstance(cache.get_store(), cache.LRUStore)
    finally:
        cache.set_store(previous)


def test_set_store_rejects_objects_without_get_and_set():
    with pytest.raises(TypeError):
        cache.set_store(object())


def test_a_broken_store_is_bypassed_not_fatal(caplog):
    shout, calls = make_counted()

    with cache.use_store(BrokenStore()):
        assert shout("hi") == "HI"
        assert shout("hi") == "HI"

    assert calls == ["hi", "hi"]
    assert "Render cache" in caplog.text


def test_non_string_values_in_the_store_count_as_misses():
    store = DictStore()
    shout, calls = make_counted()
    with cache.use_store(store):
        shout("hi")
        (key,) = store.data
        store.data[key] = 42
        assert shout("hi") == "HI"
    assert calls == ["hi", "hi"]


def test_empty_string_results_are_cached():
    calls = []

    @cache.memoize("empty")
    def empty(text: str) -> str:
        calls.append(text)
        return ""

    assert empty("x") == ""
    assert empty("x") == ""
    assert calls == ["x"]


def test_lru_store_evicts_the_least_recently_used_entry():
    store = cache.LRUStore(max_entries=2)
    store.set("a", "1")
    store.set("b", "2")
    assert store.get("a") == "1"  # "a" is now the most recent

    store.set("c", "3")

    assert store.get("b") is None
    assert store.get("a") == "1"
    assert store.get("c") == "3"
    assert len(store) == 2
    assert store.get("missing", "default") == "default"


def test_lru_store_is_bounded_by_default():
    store = cache.LRUStore()
    for i in range(cache.DEFAULT_MAX_ENTRIES + 10):
        store.set(str(i), "x")
    assert len(store) == cache.DEFAULT_MAX_ENTRIES


def test_lru_store_survives_concurrent_use():
    store = cache.LRUStore(max_entries=50)
    errors = []

    def worker(n):
        try:
            for i in range(2000):
                store.set(f"{n}-{i}", "v")
                store.get(f"{n}-{i - 1}")
        except Exception as exc:  # pragma: no cover - only on failure
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    assert len(store) == 50


def test_reset_stats_zeroes_the_counters():
    shout, _ = make_counted()
    shout("a")
    shout("a")

    cache.reset_stats()

    assert cache.render_count() == 0
    assert cache.hit_count() == 0


# Batched reads: a text of N formulas costs O(1) round trips --------------------


class CountingStore(DictStore):
    """A DictStore that counts round trips, with Django's get_many/set_many."""

    def __init__(self):
        super().__init__()
        self.round_trips = 0

    def get(self, key, default=None):
        self.round_trips += 1
        return super().get(key, default)

    def set(self, key, value, timeout=None):
        self.round_trips += 1
        super().set(key, value, timeout)

    def get_many(self, keys):
        self.round_trips += 1
        return {key: self.data[key] for key in keys if key in self.data}

    def set_many(self, data, timeout=None):
        self.round_trips += 1
        self.data.update(data)
        return []


def _round_trips(render, text: str) -> tuple[int, int]:
    """Return the round trips of rendering ``text`` cold, then of a warm re-render.

    The warm one skips the whole-text entry, so every formula's entry is read.
    """
    store = CountingStore()
    with cache.use_store(store):
        html = render(text)
        cold = store.round_trips
        text_keys = [key for key in store.data if not key.startswith("katex:")]
        for key in text_keys:
            del store.data[key]
        store.round_trips = 0
        assert render(text) == html
        return cold, store.round_trips


@pytest.mark.parametrize(
    ("render", "unit"),
    [
        (render_markdown, "Let $x_{N}$ be.\n\n$$y_{N}$$\n\n"),
        (render_inline_text, r"a $x_{N}$ and \(y_{N}\), "),
        (render_inline_html, "<p>a $x_{N}$ and <b>\\(y_{N}\\)</b></p>"),
    ],
)
def test_a_text_of_many_formulas_is_a_few_cache_round_trips(render, unit):
    def trips(n: int) -> tuple[int, int]:
        return _round_trips(
            render, "".join(unit.replace("{N}", f"{{{i}}}") for i in range(n))
        )

    few, many = trips(3), trips(300)
    assert many == few
    assert many[1] <= 3  # the text's entry, then one batch of formulas


def test_a_batch_serves_prefetched_entries_and_writes_new_ones_at_the_end():
    store = CountingStore()
    with cache.use_store(store):
        render_math("a")
        store.round_trips = 0
        with cache.batch():
            prefetch_math([("a", False), ("b", False), ("c", True)])
            assert store.round_trips == 1
            render_math("a")
            render_math("b")
            render_math("c", display=True)
            assert store.round_trips == 1
        assert store.round_trips == 2  # one set_many for b and c
        assert cache.hit_count("katex") == 1  # "a", rendered before the batch
        assert cache.render_count("katex") == 3
        store.round_trips = 0
        render_math("b")
        assert store.round_trips == 1


def test_a_store_without_get_many_still_works_in_a_batch():
    store = DictStore()
    with cache.use_store(store):
        with cache.batch():
            prefetch_math([("a", False)])
            html = render_math("a")
        assert render_math("a") == html
        assert cache.render_count("katex") == 1


def test_lru_store_get_many_and_set_many():
    store = cache.LRUStore(max_entries=2)
    assert store.set_many({"a": "1", "b": "2"}) == []
    assert store.get_many(["a", "b", "c"]) == {"a": "1", "b": "2"}
    store.set("c", "3")  # "a" was read first, so it goes
    assert store.get_many(["a", "b", "c"]) == {"b": "2", "c": "3"}


def test_a_long_batch_writes_its_results_as_it_goes(monkeypatch):
    monkeypatch.setattr(cache, "WRITE_CHUNK", 10)
    store = CountingStore()
    with cache.use_store(store):
        with cache.batch():
            for i in range(25):
                render_math(f"x_{{{i}}}")
            # A worker killed now (its timeout) leaves two chunks written.
            assert len(store.data) == 20
        assert len(store.data) == 25


def test_a_result_larger_than_the_bound_is_returned_but_not_kept(monkeypatch):
    monkeypatch.setattr(cache, "MAX_ENTRY_BYTES", 1000)
    shout, calls = make_counted()
    small, large, wide = "a" * 1000, "b" * 1001, "字" * 400  # 1,200 bytes

    for _ in range(2):
        assert shout(small) == small.upper()
        assert shout(large) == large.upper()
        assert shout(wide) == wide
        with cache.batch():
            shout(large)

    assert calls == [small, large, wide, large] + [large, wide, large]


def test_a_markdown_text_checked_before_is_not_checked_formula_by_formula():
    from rendering.markdown import markdown_math_errors

    text = "\n\n".join(f"$$a_{{{k}}} = k^2$$" for k in range(50)) + "\n\n$x^{2$"
    first = markdown_math_errors(text)
    katex_lookups = cache.hit_count("katex") + cache.render_count("katex")

    assert markdown_math_errors(text) == first
    assert len(first) == 1 and "Expected '}'" in first[0]
    assert cache.hit_count("katex") + cache.render_count("katex") == katex_lookups
    # A changed text is checked again.
    assert markdown_math_errors(text.replace("x^{2$", "x^{2}$")) == []
