"""Old URLs, links between files, the folder walk and the reading order."""

import datetime

import pytest

from vault.importer.links import (
    POST,
    SERIES,
    LinkIndex,
    alias_paths,
    old_paths,
    quartz_slug,
)
from vault.importer.tree import is_excluded, natural_key, order_key, scan, slug_for


@pytest.mark.parametrize(
    "path, slug",
    [
        ("notes/CSAPP/7-链接.md", "notes/CSAPP/7-链接"),
        ("notes/CSAPP/8 异常控制流.md", "notes/CSAPP/8-异常控制流"),
        ("a/100% done?.md", "a/100-percent-done-q"),
        ("cuda", "cuda"),
        ("x/_index.md", "x/index"),
    ],
)
def test_quartz_slugs_keep_case_and_unicode(path, slug):
    assert quartz_slug(path) == slug


def test_old_paths_of_posts_folders_and_aliases():
    assert old_paths("notes/CSAPP/7-链接.md", folder=False) == ["/notes/CSAPP/7-链接"]
    assert old_paths("notes/CSAPP", folder=True, prefix="/blog/") == [
        "/blog/notes/CSAPP"
    ]
    assert alias_paths(
        [
            "old name",
            "/legacy/x/",
            "https://old.example.com/p/q",
            "../up",
            "../../../out",
        ],
        "notes/CSAPP/7.md",
        folder=False,
    ) == [
        "/notes/CSAPP/old-name",
        "/notes/CSAPP/old name",
        "/legacy/x",
        "/p/q",
        "/notes/up",
    ]
    # The file's path as written (MkDocs) besides Quartz's form.
    assert old_paths("cuda/Vector Add.md", folder=False) == [
        "/cuda/Vector-Add",
        "/cuda/Vector Add",
    ]
    assert alias_paths(["/old/vector%20add/"], "cuda/x.md", folder=False) == [
        "/old/vector-add",
        "/old/vector add",
    ]


def test_slugs_are_unicode_and_lowercase():
    assert slug_for("7-链接.md") == "7-链接"
    assert slug_for("从GEMM实践CUDA优化.md") == "从gemm实践cuda优化"
    assert slug_for("CSAPP") == "csapp"
    assert slug_for("!!!.md") == "page"


def test_links_resolve_like_obsidian_and_relative_paths():
    index = LinkIndex()
    index.add((POST, "cuda/2-smem.md"), aliases=["Shared Memory"])
    index.add((POST, "notes/smem.md"))
    index.add((POST, "cuda/smem.md"))
    index.add((SERIES, "notes/CSAPP"))
    index.add((POST, "notes/CSAPP/7-链接.md"))
    here = "cuda/10-shfl.md"
    assert index.resolve_path("2-smem.md#bank", here) == (POST, "cuda/2-smem.md")
    assert index.resolve_path("../notes/CSAPP/7-%E9%93%BE%E6%8E%A5.md", here) == (
        POST,
        "notes/CSAPP/7-链接.md",
    )
    assert index.resolve_path("/notes/smem.md", here) == (POST, "notes/smem.md")
    assert index.resolve_path("../notes/CSAPP/index.md", here) == (
        SERIES,
        "notes/CSAPP",
    )
    assert index.resolve_path("nowhere.md", here) is None
    assert index.resolve_wiki("2-smem", here) == (POST, "cuda/2-smem.md")
    assert index.resolve_wiki("smem", here) == (
        POST,
        "cuda/smem.md",
    )  # same folder wins
    assert index.resolve_wiki("smem", "other.md") == (POST, "cuda/smem.md")
    assert index.resolve_wiki("notes/smem", here) == (POST, "notes/smem.md")
    assert index.resolve_wiki("shared memory", here) == (POST, "cuda/2-smem.md")
    assert index.resolve_wiki("CSAPP", here) == (SERIES, "notes/CSAPP")
    assert index.resolve_wiki("missing", here) is None


def test_natural_order_then_weight_then_date():
    assert sorted(["10-x", "2-x", "1-y"], key=natural_key) == ["1-y", "2-x", "10-x"]
    day = datetime.date
    items = [
        ("zeta.md", None, day(2024, 1, 1)),
        ("10-b.md", None, None),
        ("alpha.md", None, day(2025, 1, 1)),
        ("2-a.md", None, None),
        ("last.md", 5, None),
        ("first.md", 1, None),
    ]
    ordered = sorted(items, key=lambda item: order_key(*item))
    assert [name for name, _, _ in ordered] == [
        "first.md",
        "last.md",
        "2-a.md",
        "10-b.md",
        "zeta.md",
        "alpha.md",
    ]


def test_excludes_match_paths_relative_to_the_root():
    assert is_excluded("drafts/a.md", ["drafts/*"])
    assert is_excluded("drafts/deep/a.md", ["drafts/*"])
    assert is_excluded("drafts", ["drafts"])
    assert is_excluded("x/y.excalidraw.md", ["*.excalidraw.md"])
    assert not is_excluded("notes/drafts.md", ["drafts/*"])


def test_scan_finds_series_and_posts_and_skips_the_rest(tmp_path):
    for path in [
        "index.md",
        "top.md",
        "a/index.md",
        "a/1.md",
        "a/b/2.md",
        "a/images/x.md",
        ".obsidian/app.md",
        "empty/pic.png",
        "drafts/d.md",
    ]:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("x")
    tree = scan(tmp_path, exclude=["drafts/*"])
    assert tree.index is None  # a root index.md is ignored
    assert tree.posts == ["top.md"]
    assert [f.rel for f in tree.walk()] == ["", "a", "a/b"]
    [a] = tree.folders
    assert a.index == tmp_path / "a" / "index.md"
    assert a.posts == ["a/1.md"]
