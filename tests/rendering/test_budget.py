"""A render budget: past it, formulas and code show their source, and nothing
made with a stand-in is kept; what was rendered before is, and is served."""

from rendering import budget, cache, render_markdown, render_math
from rendering.highlight import highlight
from rendering.math import render_math_safe


def test_without_a_budget_everything_is_rendered():
    assert not budget.limited()
    assert 'class="katex"' in render_math_safe("x^2")
    assert budget.deferred() == 0


def test_past_the_budget_a_formula_shows_its_source_and_is_not_kept(fresh_store):
    with budget.budget(0), budget.watch() as seen:
        shown = render_math_safe("a<b^2", display=True)
    assert shown == '<div class="math-pending"><code>a&lt;b^2</code></div>'
    assert seen.provisional
    assert cache.render_count("katex") == 0
    # Out of the budget, the formula is typeset, and then kept.
    assert 'class="katex-display"' in render_math("a<b^2", display=True)
    assert cache.render_count("katex") == 1


def test_a_formula_rendered_before_is_served_past_the_budget():
    typeset = render_math("e^{i\\pi}")
    with budget.budget(0), budget.watch() as seen:
        assert render_math("e^{i\\pi}") == typeset
    assert not seen.provisional


def test_markdown_around_a_formula_put_off_is_not_kept():
    text = "Energy: $E = mc^2$\n\n```cuda\n__global__ void k() {}\n```\n"
    with budget.budget(0), budget.watch() as seen:
        partial = render_markdown(text)
    assert seen.provisional
    assert '<span class="math-pending"><code>E = mc^2</code></span>' in partial
    assert "<code>__global__ void k() {}" in partial
    assert "katex" not in partial
    # Rendered again without a budget: whole, not the partial text kept above.
    whole = render_markdown(text)
    assert 'class="katex"' in whole and "math-pending" not in whole
    assert '<span class="n">k</span>' in whole or 'class="nf"' in whole


def test_code_past_the_budget_shows_escaped_source():
    with budget.budget(0):
        shown = highlight("if (a < b) {}", "c")
    assert shown == (
        '<div class="highlight"><pre><code>if (a &lt; b) {}</code></pre></div>'
    )


def test_a_budget_not_spent_renders_and_keeps(fresh_store):
    with budget.budget(60), budget.watch() as seen:
        assert 'class="katex"' in render_math_safe("y_1")
    assert not seen.provisional
    assert cache.render_count("katex") == 1


def test_nested_budgets_keep_the_outer_deadline():
    with budget.budget(0), budget.budget(60):
        assert budget.spent()
