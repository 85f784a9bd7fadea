"""Every imported page gets a free, meaningful URL, and every old URL still answers.

The vault here is written the way Obsidian and MkDocs authors name things: a
`tags/` folder of their own, `C`, `C++` and `C#` side by side, file names with
spaces and Chinese, a folder introduced by its README.md, aliases copied from an
old site's address bar.
"""

import re
import textwrap
from io import StringIO
from pathlib import Path
from urllib.parse import unquote

import pytest
from django.core.management import call_command
from wagtail.contrib.redirects.models import Redirect

from blog.models import PostPage, SeriesPage
from tests.vault.importer.runs import outcomes, totals
from vault.importer.body import parse_body
from vault.importer.tree import scan, slug_for

pytestmark = pytest.mark.django_db


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip(), "utf-8")
    return root


def note(title: str, date: str = "2024-05-01", extra: str = "") -> str:
    return f"---\ntitle: {title}\ndate: {date}\n{extra}---\n\n{title} 的正文。\n"


VAULT = {
    # A section of the author's own that is called like the site's tag index.
    "tags/index.md": "---\ntitle: 标签说明\n---\n\n怎样给文章打标签。\n",
    "tags/how-to-tag.md": note("怎样打标签"),
    # Names the site answers itself, at the top and in a series.
    "search.md": note("搜索技巧"),
    "admin/index.md": "---\ntitle: 运维\n---\n\n服务器管理。\n",
    "admin/backup.md": note("备份"),
    "archive.md": note("我的归档习惯"),
    "cuda/feed.md": note("Feed forward"),
    "cuda/Vector Add Optimization Example.md": note(
        "Vector Add Optimization Example",
        extra="aliases:\n  - /old/vector%20add/\n",
    ),
    # One folder, names that only a sign or the case tells apart.
    "lang/C.md": note("C", "2024-01-01"),
    "lang/C++.md": note("C++", "2024-01-02"),
    "lang/C#.md": note("C#", "2024-01-03"),
    "lang/C++异步方案.md": note("C++异步方案", "2024-01-04"),
    "lang/7-B+Tree.md": note("B+ 树", "2024-01-05"),
    "lang/F# basics.md": note("F# 入门", "2024-01-06"),
    "notes/CSAPP/7-链接.md": note("链接"),
    "notes/CSAPP/8 异常控制流.md": note("异常控制流"),
}


@pytest.fixture
def vault(tmp_path):
    return write(tmp_path / "vault", VAULT)


def slug_of(source_path: str) -> str:
    page = PostPage.objects.filter(source_path=source_path).first()
    page = page or SeriesPage.objects.get(source_path=source_path)
    return page.slug


def url_of(source_path: str) -> str:
    page = PostPage.objects.filter(source_path=source_path).first()
    return (page or SeriesPage.objects.get(source_path=source_path)).url


# Slugs that collide ----------------------------------------------------------


def test_a_folder_named_like_the_tag_index_gets_a_free_slug(vault, run_import, client):
    run = run_import(vault)
    assert run.error is None, run.out
    assert slug_of("tags") == "tags-2"
    assert (
        "tags/index.md: slug taken: 'tags' is used by /tags/ (TagIndexPage); "
        "using 'tags-2'" in run.out
    )
    # The summary says it too, after the warnings.
    assert re.search(
        r"^Slugs taken, so \d+ pages are at another: .*tags/index.md → tags-2",
        run.out,
        re.M,
    )
    tag_index = client.get("/tags/")
    assert tag_index.status_code == 200
    assert type(tag_index.context["page"]).__name__ == "TagIndexPage"
    assert "怎样给文章打标签" in client.get("/tags-2/").content.decode()
    assert client.get("/tags-2/how-to-tag/").status_code == 200


def test_paths_the_site_answers_itself_are_never_a_slug(vault, run_import, client):
    run = run_import(vault)
    assert run.error is None, run.out
    assert slug_of("search.md") == "search-2"
    assert slug_of("admin") == "admin-2"
    assert slug_of("archive.md") == "archive-2"
    # A series answers feed/ itself: a post called feed would never be seen.
    assert slug_of("cuda/feed.md") == "feed-2"
    assert (
        "search.md: slug taken: 'search' is reserved by the site (/search/)" in run.out
    )
    assert (
        "cuda/feed.md: slug taken: 'feed' is a route of its series; using 'feed-2'"
        in run.out
    )
    assert client.get("/admin-2/backup/").status_code == 200
    assert client.get("/cuda/feed-2/").status_code == 200
    assert client.get("/cuda/feed/")["Content-Type"].startswith("application/")


def test_files_whose_names_differ_only_in_case_get_two_slugs(tmp_path, run_import):
    root = write(tmp_path / "v", {"c/C.md": note("大写", "2024-01-01")})
    run_import(root)
    assert slug_of("c/C.md") == "c"
    # A file added later takes what is left: the page made before keeps its URL.
    write(root, {"c/c.md": note("小写", "2023-01-01")})
    run = run_import(root)
    assert run.error is None, run.out
    assert (slug_of("c/C.md"), slug_of("c/c.md")) == ("c", "c-2")
    assert "c/c.md: slug taken: 'c' is used by c/C.md; using 'c-2'" in run.out


def test_a_second_import_keeps_every_slug_and_changes_nothing(vault, run_import):
    first = run_import(vault)
    assert first.error is None, first.out
    slugs = {p.source_path: p.slug for p in PostPage.objects.all()}
    before = totals()
    again = run_import(vault)
    assert again.error is None, again.out
    assert outcomes(again.out)["created"] == (0, 0)
    assert outcomes(again.out)["updated"] == (0, 0)
    assert totals() == before
    assert {p.source_path: p.slug for p in PostPage.objects.all()} == slugs
    assert not PostPage.objects.filter(slug__regex=r"-3$").exists()


# Slugs that keep their meaning -----------------------------------------------


@pytest.mark.parametrize(
    "name, slug",
    [
        ("C.md", "c"),
        ("C++.md", "cpp"),
        ("C#.md", "csharp"),
        ("F# basics.md", "fsharp-basics"),
        ("C++异步方案.md", "cpp异步方案"),
        ("7-B+Tree.md", "7-b-plus-tree"),
        ("g++ flags", "gpp-flags"),
        ("Ｃ＋＋", "cpp"),  # full-width signs
        ("Issue #12", "issue-12"),  # not a language's sharp
        ("7-链接.md", "7-链接"),
    ],
)
def test_slugs_spell_out_the_signs_that_carry_meaning(name, slug):
    assert slug_for(name) == slug


def test_c_cpp_and_csharp_are_three_pages(vault, run_import, client):
    run = run_import(vault)
    assert run.error is None, run.out
    assert {
        source: slug_of(f"lang/{source}")
        for source in ("C.md", "C++.md", "C#.md", "C++异步方案.md", "7-B+Tree.md")
    } == {
        "C.md": "c",
        "C++.md": "cpp",
        "C#.md": "csharp",
        "C++异步方案.md": "cpp异步方案",
        "7-B+Tree.md": "7-b-plus-tree",
    }
    assert "C++ 的正文" in client.get("/lang/cpp/").content.decode()
    assert "slug taken" not in "".join(
        line for line in run.out.splitlines() if "lang/" in line
    )


# Old URLs --------------------------------------------------------------------

VECTOR_ADD = "/cuda/vector-add-optimization-example/"


OLD_URLS = [
    ("/cuda/Vector%20Add%20Optimization%20Example/", VECTOR_ADD),
    ("/cuda/Vector%20Add%20Optimization%20Example", VECTOR_ADD),
    ("/cuda/Vector Add Optimization Example/", VECTOR_ADD),  # as typed
    ("/cuda/Vector-Add-Optimization-Example/", VECTOR_ADD),  # Quartz's form
    ("/old/vector%20add/", VECTOR_ADD),  # an alias copied percent-encoded
    ("/old/vector-add", VECTOR_ADD),
    ("/notes/CSAPP/7-%E9%93%BE%E6%8E%A5/", "/notes/csapp/7-链接/"),
    ("/notes/CSAPP/7-链接", "/notes/csapp/7-链接/"),
    (
        "/notes/CSAPP/8%20%E5%BC%82%E5%B8%B8%E6%8E%A7%E5%88%B6%E6%B5%81/",
        "/notes/csapp/8-异常控制流/",
    ),
    ("/notes/CSAPP/8-异常控制流/", "/notes/csapp/8-异常控制流/"),
    ("/notes/CSAPP/", "/notes/csapp/"),
    ("/lang/C++/", "/lang/cpp/"),
    ("/lang/C%2B%2B", "/lang/cpp/"),
    ("/lang/C%23/", "/lang/csharp/"),
    ("/lang/C/", "/lang/c/"),  # C's own, although Quartz spells C# /lang/C too
    ("/lang/7-B+Tree/", "/lang/7-b-plus-tree/"),
    ("/lang/F%23%20basics/", "/lang/fsharp-basics/"),
    ("/tags/how-to-tag/", "/tags-2/how-to-tag/"),  # no tag of that name
]


def test_every_form_of_an_old_url_redirects_permanently(vault, run_import, client):
    run = run_import(vault)
    assert run.error is None, run.out
    answers = {}
    for old, _ in OLD_URLS:
        response = client.get(old)
        answers[old] = (response.status_code, unquote(response.get("Location", "")))
    assert answers == {old: (301, new) for old, new in OLD_URLS}


def test_an_old_url_that_another_file_also_had_goes_to_its_own_file(vault, run_import):
    run = run_import(vault)
    assert (
        "lang/C#.md: old URL not redirected: /lang/C is an old URL of lang/C.md too"
        in run.out
    )
    assert Redirect.objects.get(old_path="/lang/C").redirect_page.slug == "c"


# Aliases and embeds ----------------------------------------------------------


def test_aliases_cannot_take_over_reserved_paths_or_other_pages(
    tmp_path, run_import, client
):
    root = write(
        tmp_path / "v",
        {
            "lang/C.md": note("C"),
            "hijack.md": note(
                "Hijack",
                extra=(
                    "aliases:\n  - /admin\n  - /admin/pages/\n  - /feed/\n"
                    "  - /static/css/site.css\n  - /archive/\n  - /lang/c/\n"
                    "  - /sitemap.xml\n  - /healthz\n  - /fine/old-path/\n"
                ),
            ),
        },
    )
    run = run_import(root)
    assert run.error is None, run.out
    for path in (
        "/admin",
        "/admin/pages",
        "/feed",
        "/static/css/site.css",
        "/sitemap.xml",
        "/healthz",
    ):
        assert (
            f"hijack.md: alias not redirected: {path} is reserved by the site"
            in run.out
        )
    assert (
        "hijack.md: alias not redirected: /archive is the path of /archive/ (ArchivePage)"
        in run.out
    )
    assert (
        "hijack.md: alias not redirected: /lang/c is the path of the page of lang/C.md"
        in run.out
    )
    hijack = PostPage.objects.get(slug="hijack")
    assert set(
        Redirect.objects.filter(redirect_page=hijack).values_list("old_path", flat=True)
    ) == {"/fine/old-path"}
    assert client.get("/admin")["Location"] == "/admin/"
    assert client.get("/archive/").status_code == 200
    assert client.get("/lang/c/").status_code == 200
    assert client.get("/fine/old-path/")["Location"] == "/hijack/"


def test_an_alias_may_not_take_the_path_of_a_page_imported_before(tmp_path, run_import):
    root = write(tmp_path / "v", {"a.md": note("A")})
    run_import(root)
    write(tmp_path / "w", {"b.md": note("B", extra="aliases: [/a/]\n")})
    run = run_import(tmp_path / "w")
    assert "b.md: alias not redirected: /a is the path of /a/ (PostPage)" in run.out
    assert not Redirect.objects.filter(old_path="/a").exists()


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "file:///etc/passwd",
        "data:text/html,<b>x</b>",
        "//evil.example/x",
        "ftp://example.com/v",
    ],
)
def test_an_embed_must_be_an_http_url(url):
    body = parse_body(f"Before.\n\n<!-- embed: {url} -->\n\nAfter.\n")
    assert [block.type for block in body.blocks] == ["paragraph"]
    assert [(w.line, w.message) for w in body.warnings] == [
        (3, f"embed not imported: {url!r} is not an http(s) URL")
    ]


def test_an_http_embed_is_kept():
    body = parse_body("<!-- embed: https://www.youtube.com/watch?v=abc -->\n")
    assert [(b.type, b.value) for b in body.blocks] == [
        ("embed", "https://www.youtube.com/watch?v=abc")
    ]


# README.md -------------------------------------------------------------------


def test_a_readme_is_its_folders_intro_when_there_is_no_index(
    tmp_path, run_import, client
):
    root = write(
        tmp_path / "v",
        {
            "README.md": "# My notes\n\nThe vault's own readme.\n",
            "notes/README.md": "# 读书笔记\n\n这些是读书时记下的笔记。\n",
            "notes/git.md": note("Git", extra="") + "\n见 [本节简介](README.md)。\n",
            # index.md wins; the README stays a post, as the old site showed it.
            "cute/index.md": "---\ntitle: CuTe\n---\n\nCuTe 的简介。\n",
            "cute/README.md": note("README"),
        },
    )
    run = run_import(root)
    assert run.error is None, run.out
    notes = SeriesPage.objects.get(slug="notes")
    assert notes.title == "读书笔记"
    assert "读书时记下的笔记" in client.get(notes.url).content.decode()
    assert not PostPage.objects.filter(
        source_path__iendswith="notes/README.md"
    ).exists()
    assert not PostPage.objects.filter(title="My notes").exists()
    assert "Not imported: README.md at the vault's root" in run.out
    assert (
        PostPage.objects.get(source_path="cute/README.md").get_parent().slug == "cute"
    )
    git = PostPage.objects.get(slug="git")
    assert f'id="{notes.pk}"' in str(git.body.raw_data)
    assert "broken link" not in run.out


def test_the_folder_walk_takes_a_readme_as_intro():
    here = Path(__file__).resolve().parent / "fixtures" / "habits"
    tree = scan(here)
    notes = next(f for f in tree.folders if f.rel == "notes")
    assert notes.index is not None and notes.index.name == "README.md"
    assert "notes/README.md" not in notes.posts


def test_a_page_an_older_importer_slugged_moves_and_its_old_url_redirects(
    vault, run_import, client, django_capture_on_commit_callbacks
):
    run_import(vault)
    cpp = PostPage.objects.get(source_path="lang/C++.md")
    # As the importer before this version made it: `C++` lost its signs.
    cpp.slug = "c-2"
    cpp.save_revision().publish()
    PostPage.objects.filter(pk=cpp.pk).update(source_hash="made by version 1")
    assert client.get("/lang/c-2/").status_code == 200
    # Wagtail adds the redirect from the old slug once the change is committed.
    with django_capture_on_commit_callbacks(execute=True):
        run = run_import(vault)
    assert run.error is None, run.out
    assert slug_of("lang/C++.md") == "cpp"
    response = client.get("/lang/c-2/")
    assert (response.status_code, response.get("Location")) == (301, "/lang/cpp/")


def test_old_urls_survive_export_and_import_into_an_empty_site(
    vault, run_import, client, home, tmp_path
):
    assert run_import(vault).error is None
    call_command("export_markdown", str(tmp_path / "out"), stdout=StringIO())
    for child in home.get_children().specific():
        if isinstance(child, PostPage | SeriesPage):
            child.delete()
    Redirect.objects.all().delete()
    run = run_import(tmp_path / "out")
    assert run.error is None, run.out
    answers = {}
    for old, _ in OLD_URLS:
        response = client.get(old)
        answers[old] = (response.status_code, unquote(response.get("Location", "")))
    assert answers == {old: (301, new) for old, new in OLD_URLS}
    assert client.get("/tags-2/how-to-tag/").status_code == 200
