"""Formulas that a few hundred characters of \\def macros blow up (issue 30).

Each stays under KaTeX's maxExpand (1 + 9 + 81 + 729 = 820 expansions of
1000), yet typesets 729 copies of its leaf: unbounded, `MACRO_BOMB` takes
seconds and makes about 30 MB of HTML.
"""

_LEAF = r"\frac{\sqrt{x^2+y^2}}{\sqrt[3]{a_1+b_2}}"


def macro_bomb(leaf: str = _LEAF * 7, mark: str = "") -> str:
    r"""Return a formula typesetting 729 copies of ``leaf``.

    ``mark`` (a letter, say) is written into the leaf, to get a formula no
    cache holds yet.
    """
    return (
        rf"\def\a{{{mark}{leaf}}}"
        r"\def\b{\a\a\a\a\a\a\a\a\a}"
        r"\def\c{\b\b\b\b\b\b\b\b\b}"
        r"\def\d{\c\c\c\c\c\c\c\c\c}"
        r"\d"
    )


# 368 characters: the size of the formulas in the finding.
MACRO_BOMB = macro_bomb()
# 208 characters, about 13 MB unbounded: typeset within the old 5 s time-out.
SMALL_BOMB = macro_bomb(_LEAF * 3)
