"""A post without dates in its front matter is dated from the vault's git history."""

import datetime
import os
import shutil
import subprocess

import pytest

from blog.models import PostPage
from vault.importer import history

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed"),
]


class Repo:
    """A git repository in tmp_path whose commits are made on chosen days."""

    def __init__(self, root):
        self.root = root
        root.mkdir(parents=True)
        self.git("init", "-q")

    def git(self, *args, day: str = "2020-01-01"):
        self.run_git(self.root, *args, day=day)

    @staticmethod
    def run_git(where, *args, day: str = "2020-01-01"):
        moment = f"{day}T12:00:00+08:00"
        env = {
            **os.environ,
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_AUTHOR_NAME": "Author",
            "GIT_AUTHOR_EMAIL": "author@example.com",
            "GIT_COMMITTER_NAME": "Author",
            "GIT_COMMITTER_EMAIL": "author@example.com",
            "GIT_AUTHOR_DATE": moment,
            "GIT_COMMITTER_DATE": moment,
        }
        subprocess.run(  # noqa: S603
            ["git", *args],  # noqa: S607
            cwd=where,
            env=env,
            check=True,
            capture_output=True,
        )

    def write(self, rel: str, text: str):
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
        return path

    def commit(self, day: str, message: str = "edit"):
        self.git("add", "-A", day=day)
        self.git("commit", "-q", "-m", message, day=day)


def dates(source_path: str) -> tuple[datetime.date, datetime.date]:
    page = PostPage.objects.get(source_path=source_path)
    return page.date, page.updated


@pytest.fixture
def blog_repo(tmp_path):
    """An author's blog repository: the vault is its `content/` folder."""
    repo = Repo(tmp_path / "blog")
    repo.write("README.md", "# My blog\n")
    repo.write("content/cuda/warp shuffle.md", "# Warp shuffle\n\nFirst draft.\n")
    repo.write("content/笔记/第 一 篇.md", "# 第一篇\n\n正文。\n")
    repo.write(
        "content/cuda/dated.md",
        "---\ntitle: Dated\ndate: 2019-07-01\n---\nThe front matter says when.\n",
    )
    repo.commit("2021-03-04", "first posts")
    repo.write("content/cuda/warp shuffle.md", "# Warp shuffle\n\nRewritten.\n")
    repo.write("content/cuda/dated.md", "---\ntitle: Dated\ndate: 2019-07-01\n---\nx\n")
    repo.commit("2022-05-06")
    repo.git("mv", "content/笔记/第 一 篇.md", "content/笔记/第 1 篇.md")
    repo.commit("2023-02-03", "rename")
    repo.write("README.md", "# My blog, later\n")
    repo.commit("2024-08-09", "outside the vault")
    untracked = repo.write("content/cuda/new.md", "# Not committed yet\n")
    moment = datetime.datetime(2025, 1, 2, 12).timestamp()
    os.utime(untracked, (moment, moment))
    return repo


def test_posts_without_dates_take_them_from_their_first_and_last_commit(
    blog_repo, run_import, home, monkeypatch
):
    calls = []
    real_run = history.subprocess.run

    def counted(*args, **kwargs):
        calls.append(args)
        return real_run(*args, **kwargs)

    monkeypatch.setattr(history.subprocess, "run", counted)

    run = run_import(blog_repo.root / "content")

    assert run.error is None, run.out
    day = datetime.date
    assert dates("cuda/warp shuffle.md") == (day(2021, 3, 4), day(2022, 5, 6))
    # Renamed, with a space and Chinese in its name: its history follows it.
    assert dates("笔记/第 1 篇.md") == (day(2021, 3, 4), day(2023, 2, 3))
    # The front matter's date wins; the last commit still says when it changed.
    assert dates("cuda/dated.md") == (day(2019, 7, 1), day(2022, 5, 6))
    # Not committed yet: the file's own time.
    assert dates("cuda/new.md") == (day(2025, 1, 2), day(2025, 1, 2))
    # One git log for the whole vault, one question: is the clone shallow?
    assert sorted(call[0][8] for call in calls) == ["log", "rev-parse"]
    assert "2 posts without a date in their front matter are dated from git" in run.out


def test_without_git_the_file_times_are_used(blog_repo, run_import, home, monkeypatch):
    monkeypatch.setattr(history.shutil, "which", lambda name: None)
    shuffle = blog_repo.root / "content" / "cuda" / "warp shuffle.md"
    moment = datetime.datetime(2025, 6, 7, 12).timestamp()
    os.utime(shuffle, (moment, moment))

    run = run_import(blog_repo.root / "content")

    assert run.error is None, run.out
    assert dates("cuda/warp shuffle.md") == (datetime.date(2025, 6, 7),) * 2
    assert "dated from git" not in run.out


def test_a_vault_outside_any_repository_uses_the_file_times(tmp_path, run_import, home):
    vault = tmp_path / "plain"
    vault.mkdir()
    path = vault / "post.md"
    path.write_text("# Post\n", "utf-8")
    moment = datetime.datetime(2024, 4, 5, 12).timestamp()
    os.utime(path, (moment, moment))

    run = run_import(vault)

    assert run.error is None, run.out
    assert dates("post.md") == (datetime.date(2024, 4, 5),) * 2


def test_the_log_is_parsed_with_renames_and_files_added_again():
    # Newest first, as git prints it: b.md was renamed from a.md; old.md was
    # added again after an older file of that name was deleted.
    log = (
        "\x012024-03-01T10:00:00+08:00\0\nR100\0a.md\0b.md\0A\0old.md\0"
        "\x012023-02-01T23:30:00-05:00\0\nD\0old.md\0"
        "\x012022-01-01T00:30:00+09:00\0\nA\0a.md\0A\0old.md\0M\0空 格.md\0"
    ).encode()
    got = history.parse_log(log)
    day = datetime.date
    assert got["b.md"] == history.FileDates(day(2022, 1, 1), day(2024, 3, 1))
    assert got["old.md"] == history.FileDates(day(2024, 3, 1), day(2024, 3, 1))
    assert got["空 格.md"] == history.FileDates(day(2022, 1, 1), day(2022, 1, 1))


def test_a_shallow_clone_is_named_and_a_full_one_re_dates_the_pages(
    blog_repo, tmp_path, run_import, home
):
    clone = tmp_path / "clone"
    source = f"file://{blog_repo.root}"
    Repo.run_git(tmp_path, "clone", "-q", "--depth", "1", source, str(clone))

    run = run_import(clone / "content")

    assert run.error is None, run.out
    # A shallow clone knows only its last commit: every file seems added then.
    assert dates("cuda/warp shuffle.md") == (datetime.date(2024, 8, 9),) * 2
    assert "the git clone is shallow" in run.out

    Repo.run_git(clone, "fetch", "-q", "--unshallow")
    run = run_import(clone / "content")

    assert dates("cuda/warp shuffle.md") == (
        datetime.date(2021, 3, 4),
        datetime.date(2022, 5, 6),
    )
    assert "the git clone is shallow" not in run.out
