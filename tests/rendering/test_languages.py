"""Any language Pygments knows is highlighted; the curated ones come first."""

from bs4 import BeautifulSoup
from pygments.lexers import get_lexer_by_name

from rendering import (
    LANGUAGES,
    highlight,
    language_choices,
    normalise_language,
    render_markdown,
)


def token_classes(html: str) -> set[str]:
    code = BeautifulSoup(html, "html.parser").find("code")
    return {cls for span in code.find_all("span") for cls in span.get("class", [])}


def test_the_choices_start_with_the_curated_list_then_every_other_lexer_once():
    choices = language_choices()
    values = [value for value, _ in choices]

    assert choices[: len(LANGUAGES)] == LANGUAGES
    assert len(values) == len(set(values))
    assert {"cypher", "thrift", "scala", "kotlin", "verilog"} <= set(values)
    rest = [label.casefold() for _, label in choices[len(LANGUAGES) :]]
    assert rest == sorted(rest)
    # Each lexer once: Dockerfile is curated, so not listed again as "docker".
    assert "docker" not in values


def test_every_alias_pygments_knows_maps_to_a_choice():
    values = {value for value, _ in language_choices()}

    for name in ["cypher", "Thrift", "py2", "kt", "sv", "docker", "CUDA", "c++"]:
        assert normalise_language(name) in values
        get_lexer_by_name(normalise_language(name))
    assert normalise_language("py2") == "python2"
    assert normalise_language("docker") == "dockerfile"
    assert normalise_language("not-a-language") == "text"


def test_cypher_and_thrift_are_highlighted_not_plain():
    cypher = highlight("MATCH (n:Person) RETURN n.name", "cypher")
    thrift = highlight("struct User {\n  1: required string name\n}", "thrift")

    assert 'class="language-cypher"' in cypher
    assert "k" in token_classes(cypher)  # MATCH is a keyword
    assert 'class="language-thrift"' in thrift
    assert "k" in token_classes(thrift) or "kd" in token_classes(thrift)


def test_a_markdown_block_highlights_any_pygments_language():
    html = render_markdown("```cypher\nMATCH (n) RETURN n\n```\n")

    assert 'class="language-cypher"' in html
    assert token_classes(html)
