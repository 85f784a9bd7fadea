"""The importer's parser reads fences as vaults write them."""

from vault.importer.body import parse_body


def test_a_fence_language_with_a_colon_name_is_read_as_the_language():
    body = parse_body("```python:main.py\nx = 1\n```\n\n```math:eq\nx^2\n```\n")

    code, math = body.blocks
    assert (code.type, code.value["language"], code.value["code"]) == (
        "code",
        "python",
        "x = 1",
    )
    assert (math.type, math.value["tex"]) == ("math", "x^2")
