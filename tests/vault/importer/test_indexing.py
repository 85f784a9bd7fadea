"""An import leaves search and backlinks as if every page had been saved alone.

The importer indexes each page once, at the end (vault/importer/indexing.py),
instead of at every save: these check what a reader and an editor then see.
"""

import threading

import pytest
from django.db import transaction
from django.db.models.signals import post_save
from modelsearch import signal_handlers as search_signals
from wagtail import signal_handlers as wagtail_signals
from wagtail.models import Page, ReferenceIndex
from wagtail.search import index
from wagtail.search.models import IndexEntry

from blog import writing
from blog.models import PostPage
from tests.factories import PostPageFactory
from vault.importer import Importer
from vault.importer.importer import PURGE_ALL_ABOVE
from vault.importer.indexing import deferred_index_updates

pytestmark = pytest.mark.django_db

MAIN = "cuda/2-shared-memory.md"


def pages_with_a_source() -> list[Page]:
    return [
        page.specific
        for page in Page.objects.all().specific()
        if getattr(page, "source_path", "")
    ]


def search_rows() -> dict[tuple[int, str], tuple[str, str, str]]:
    """Return what the search index holds, by content type and object id."""
    return {
        (row.content_type_id, row.object_id): (row.title, row.autocomplete, row.body)
        for row in IndexEntry.objects.all()
    }


def reference_rows() -> set[tuple]:
    return set(
        ReferenceIndex.objects.values_list(
            "content_type",
            "base_content_type",
            "object_id",
            "to_content_type",
            "to_object_id",
            "model_path",
            "content_path",
        )
    )


def reindex_one_by_one(pages) -> None:
    """Index pages the way a save in the admin does, one at a time."""
    for page in pages:
        index.insert_or_update_object(page)
        with transaction.atomic():
            ReferenceIndex.create_or_update_for_object(page)


def assert_indexes_are_up_to_date() -> None:
    """Indexing every imported page again, one by one, changes nothing."""
    searched, referenced = search_rows(), reference_rows()
    reindex_one_by_one(pages_with_a_source())
    assert search_rows() == searched
    assert reference_rows() == referenced


def assert_no_entry_without_its_page() -> None:
    for row in IndexEntry.objects.select_related("content_type"):
        model = row.content_type.model_class()
        assert model.objects.filter(pk=row.object_id).exists(), row.title


@pytest.fixture
def imported(vault, run_import):
    run = run_import(vault)
    assert run.error is None, run.out
    return run


def test_search_finds_each_imported_post_exactly_once(imported):
    posts = PostPage.objects.live().exclude(source_path="")
    assert posts.count() > 5
    for post in posts:
        assert PostPage.search_ids(post.title).count(post.pk) == 1, post.title


def test_the_indexes_hold_what_saving_each_page_alone_would(imported):
    assert_indexes_are_up_to_date()
    assert_no_entry_without_its_page()


def test_the_index_holds_each_posts_tags(imported):
    # Tags are saved after the page row: indexed only if indexing comes after.
    post = PostPage.objects.get(source_path="cuda/10-warp-shuffle.md")
    assert post.tags.filter(name="shuffle").exists()
    assert post.pk in PostPage.search_ids("shuffle")


def test_backlinks_name_the_imported_pages_that_link(imported):
    smem = PostPage.objects.get(source_path=MAIN)
    warp = PostPage.objects.get(source_path="cuda/10-warp-shuffle.md")
    about = PostPage.objects.get(source_path="about.md")
    linking = PostPage.objects.get(source_path="notes/CSAPP/7-链接.md")
    assert str(warp.pk) in ReferenceIndex.get_references_to(smem).values_list(
        "object_id", flat=True
    )
    # A link filled in by the link pass, after every page was written.
    assert str(about.pk) in ReferenceIndex.get_references_to(linking).values_list(
        "object_id", flat=True
    )


def test_a_changed_file_is_found_by_its_new_words_only(vault, run_import):
    run_import(vault)
    path = vault / MAIN
    path.write_text(path.read_text("utf-8").replace("bank", "zebrafish"), "utf-8")
    run = run_import(vault)
    assert run.error is None, run.out
    smem = PostPage.objects.get(source_path=MAIN)
    assert smem.pk in PostPage.search_ids("zebrafish")
    assert_indexes_are_up_to_date()


def test_reimporting_leaves_the_indexes_as_they_are(vault, run_import):
    run_import(vault)
    searched, referenced = search_rows(), reference_rows()
    run_import(vault)
    assert search_rows() == searched
    assert reference_rows() == referenced


def test_a_dry_run_leaves_the_indexes_as_they_were(vault, run_import):
    searched, referenced = search_rows(), reference_rows()
    run = run_import(vault, "--dry-run")
    assert run.error is None, run.out
    assert search_rows() == searched
    assert reference_rows() == referenced


def test_a_post_failing_after_its_page_was_saved_is_in_no_index(
    vault, run_import, monkeypatch
):
    # Fail the file after its page was added, revised and published.
    original = Importer._redirects

    def failing(self, page, source):
        if source.rel == MAIN:
            raise RuntimeError("disk full")
        return original(self, page, source)

    monkeypatch.setattr(Importer, "_redirects", failing)
    run = run_import(vault)
    assert "internal error: RuntimeError: disk full" in run.out
    assert not PostPage.objects.filter(source_path=MAIN).exists()
    live = set(PostPage.objects.live().values_list("pk", flat=True))
    assert set(PostPage.search_ids("Shared Memory")) <= live
    assert_no_entry_without_its_page()
    assert_indexes_are_up_to_date()


def test_an_interrupted_import_has_indexed_what_it_wrote(vault, home):
    class Interrupted(Exception):
        pass

    def progress(done, total, label):
        if done == 8:
            raise Interrupted

    with pytest.raises(Interrupted):
        Importer(vault, parent=home, progress=progress).run()
    written = PostPage.objects.live().exclude(source_path="")
    assert written.exists()
    for post in written:
        assert post.pk in PostPage.search_ids(post.title), post.title
    assert_indexes_are_up_to_date()


def test_a_run_that_dies_before_indexing_is_imported_again(
    vault, run_import, monkeypatch
):
    def killed(self):
        raise SystemExit("killed")  # as if the process ended here

    with monkeypatch.context() as patch:
        patch.setattr("vault.importer.indexing._Pending.flush", killed)
        with pytest.raises(SystemExit):
            run_import(vault)
    written = PostPage.objects.live().exclude(source_path="")
    assert written.exists()
    assert set(written.values_list("source_hash", flat=True)) == {""}
    again = run_import(vault)
    assert again.error is None, again.out
    assert "unchanged       0       0" in again.out
    for post in written:
        assert post.pk in PostPage.search_ids(post.title), post.title
    assert_indexes_are_up_to_date()


def test_saves_outside_an_import_are_indexed_at_once(imported, home):
    post = PostPageFactory(parent=home, title="Quokka notes")
    assert post.pk in PostPage.search_ids("quokka")
    smem = PostPage.objects.get(source_path=MAIN)
    smem.title = "Wombat memory"
    smem.save_revision().publish()
    assert PostPage.search_ids("wombat") == [smem.pk]


@pytest.fixture
def no_body_checks():
    """Leave out the writing dashboard's check of a saved post's body.

    It writes a row for the post: from another thread (another database
    connection) that write waits for this test's open transaction, which
    waits for the thread.
    """
    uid = f"writing-{PostPage}"
    post_save.disconnect(sender=PostPage, dispatch_uid=uid)
    yield
    post_save.connect(writing._page_saved, sender=PostPage, dispatch_uid=uid)


def test_only_the_deferring_thread_waits(home, monkeypatch, no_body_checks):
    post = PostPageFactory(parent=home)
    updates = []

    class Task:
        def __init__(self, kind):
            self.kind = kind

        def enqueue(self, app_label, model_name, pk):
            updates.append((self.kind, threading.current_thread().name, model_name))

    monkeypatch.setattr(search_signals, "insert_or_update_object_task", Task("search"))
    monkeypatch.setattr(
        wagtail_signals, "update_reference_index_task", Task("references")
    )

    def save():
        post_save.send(sender=PostPage, instance=post, created=False)

    with deferred_index_updates():
        save()
        assert updates == []
        other = threading.Thread(target=save, name="other")
        other.start()
        other.join()
        assert sorted(updates) == [
            ("references", "other", "postpage"),
            ("search", "other", "postpage"),
        ]
    updates.clear()
    save()  # After the block, this thread updates at each save again.
    assert len(updates) == 2


# The page cache -------------------------------------------------------------


@pytest.fixture
def page_cache_on(settings, home, tag_index, archive):
    settings.PAGE_CACHE_SECONDS = 3600
    settings.LISTING_CACHE_SECONDS = 3600


def cache(client, urls) -> None:
    for url in urls:
        client.get(url)
        assert client.get(url)["X-Page-Cache"] == "hit", url


def test_an_import_purges_the_pages_that_list_its_posts(
    page_cache_on,
    home,
    client,
    tmp_path,
    run_import,
    django_capture_on_commit_callbacks,
):
    PostPageFactory(parent=home, title="Older post", tags=["cuda", "gemm"])
    cache(client, ["/", "/archive/", "/feed/", "/tags/", "/tags/cuda/", "/tags/gemm/"])
    vault = tmp_path / "one"
    vault.mkdir()
    post = vault / "fresh.md"
    post.write_text("---\ntitle: Fresh import\ntags: [cuda]\n---\n\nText.\n", "utf-8")
    with django_capture_on_commit_callbacks(execute=True):
        assert run_import(vault).error is None
    for url in ["/", "/archive/", "/feed/", "/tags/cuda/"]:
        assert "Fresh import" in client.get(url).content.decode(), url
    # A new post straight under home is in every page's explorer, which the
    # pages load (blog.explorer): that is purged, the pages that do not list
    # the post stay cached.
    gemm = client.get("/tags/gemm/")
    assert gemm["X-Page-Cache"] == "hit"
    assert "Fresh import" in client.get("/_explorer/").content.decode()

    cache(client, ["/tags/cuda/", "/tags/gemm/"])
    post.write_text("---\ntitle: Fresh import\ntags: [gemm]\n---\n\nText.\n", "utf-8")
    with django_capture_on_commit_callbacks(execute=True):
        assert run_import(vault).error is None
    assert "Fresh import" not in listing(client.get("/tags/cuda/"))
    assert "Fresh import" in listing(client.get("/tags/gemm/"))


def listing(response) -> str:
    """Return the page's own content, without the explorer beside it."""
    html = response.content.decode()
    return html[html.index("<main") : html.index("</main>")]


def test_a_large_import_purges_every_cached_page_once_at_the_end(
    page_cache_on,
    home,
    client,
    tmp_path,
    run_import,
    django_capture_on_commit_callbacks,
):
    PostPageFactory(parent=home, title="Older post", tags=["cuda", "gemm"])
    urls = ["/", "/archive/", "/feed/", "/tags/", "/tags/cuda/", "/tags/gemm/"]
    cache(client, urls)
    vault = tmp_path / "many"
    vault.mkdir()
    for n in range(PURGE_ALL_ABOVE + 1):
        (vault / f"post-{n}.md").write_text(
            f"---\ntitle: Bulk {n}\ntags: [cuda]\n---\n\nText.\n", "utf-8"
        )
    with django_capture_on_commit_callbacks(execute=True) as purges:
        assert run_import(vault).error is None
    # One purge of everything, where each page's would have been worked out.
    assert len(purges) < PURGE_ALL_ABOVE
    for url in urls:
        assert client.get(url)["X-Page-Cache"] == "miss", url
    assert "Bulk 20" in client.get("/").content.decode()
