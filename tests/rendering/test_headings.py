import pytest

from rendering import ANCHOR_MAX_LENGTH, slugify_anchor, unique_anchors


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2.1 Shared Memory 与 Bank Conflict", "21-shared-memory-与-bank-conflict"),
        ("静态链接", "静态链接"),
        ("Hello, World!", "hello-world"),
        ("  padded  title  ", "padded-title"),
        ("snake_case and kebab-case", "snake-case-and-kebab-case"),
        ("a -- b __ c", "a-b-c"),
        ("Complexity $O(n^2)$", "complexity-on2"),
        (r"Why \alpha?", "why-alpha"),
        ("C++ 与 CUDA：入门", "c-与-cuda入门"),
        ("Ｆｕｌｌｗｉｄｔｈ１２", "fullwidth12"),
        ("Café Ünïcode", "café-ünïcode"),
        ("Über-Größe", "über-größe"),
        ("", "section"),
        ("!!!", "section"),
        ("$$", "section"),
    ],
)
def test_slugify_anchor(text, expected):
    assert slugify_anchor(text) == expected


def test_slugify_anchor_is_stable():
    assert slugify_anchor("Bank Conflict") == slugify_anchor("Bank Conflict")


def test_slugify_anchor_has_no_characters_needing_escape_in_a_fragment():
    slug = slugify_anchor("<a href='x'>\"quoted\" & #hash / path?</a>")

    assert slug == "a-hrefxquoted-hash-patha"
    assert not set(slug) & set(" <>\"'&#/?%")


def test_unique_anchors_suffixes_duplicates_in_order():
    assert unique_anchors(["Intro", "Setup", "Intro", "Intro"]) == [
        "intro",
        "setup",
        "intro-2",
        "intro-3",
    ]


def test_unique_anchors_never_takes_another_headings_slug():
    anchors = unique_anchors(["Intro", "Intro", "Intro 2"])

    assert anchors == ["intro", "intro-3", "intro-2"]
    assert len(set(anchors)) == len(anchors)


def test_unique_anchors_for_empty_headings():
    assert unique_anchors(["", "?", "Section"]) == ["section", "section-2", "section-3"]


def test_unique_anchors_accepts_any_iterable():
    assert unique_anchors(t for t in ["a", "a"]) == ["a", "a-2"]


def test_unique_anchors_are_always_distinct():
    texts = ["x", "x", "x-2", "x-2", "x-3", "x", "X", "x 2"]

    anchors = unique_anchors(texts)

    assert len(set(anchors)) == len(texts)
    assert anchors[0] == "x"


def test_a_long_heading_gets_a_short_anchor_cut_at_a_word():
    words = " ".join(f"word{n}" for n in range(60))
    anchor = slugify_anchor(words)

    assert len(anchor) <= ANCHOR_MAX_LENGTH
    assert words.replace(" ", "-").startswith(anchor + "-")
    chinese = "很长的标题" * 40
    assert slugify_anchor(chinese) == chinese[:ANCHOR_MAX_LENGTH]


def test_long_headings_sharing_a_beginning_get_distinct_anchors():
    first = "共享内存" * 30 + "的第一种用法"
    second = "共享内存" * 30 + "的第二种用法"

    anchors = unique_anchors([first, second])

    assert anchors[0] != anchors[1]
    assert all(len(anchor) <= 90 for anchor in anchors)
