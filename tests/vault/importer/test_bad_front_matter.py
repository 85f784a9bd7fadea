"""A file whose front matter cannot be read fails alone, named; the run goes on."""

import datetime
import os

from blog.models import PostPage


def write(folder, name: str, text: str, day: datetime.date):
    path = folder / name
    path.write_text(text, encoding="utf-8")
    moment = datetime.datetime.combine(day, datetime.time(12)).timestamp()
    os.utime(path, (moment, moment))


def test_impossible_dates_and_deep_nesting_fail_no_run(tmp_path, run_import, home):
    vault = tmp_path / "vault"
    vault.mkdir()
    day = datetime.date(2025, 3, 14)
    write(
        vault, "feb-30.md", "---\ntitle: 二月三十日\ndate: 2026-02-30\n---\n正文\n", day
    )
    write(
        vault, "year-0.md", "---\ntitle: Year zero\ndate: 0000-00-00\n---\nbody\n", day
    )
    write(vault, "deep.md", "---\ntitle: Deep\nx: " + "[" * 10000 + "\n---\nb\n", day)
    deep_toml = '+++\ntitle = "Deep TOML"\nx = ' + "[" * 10000 + "\n+++\nb\n"
    write(vault, "deep-toml.md", deep_toml, day)
    write(vault, "fine.md", "---\ntitle: Fine\ndate: 2024-05-06\n---\nbody\n", day)

    run = run_import(vault)

    assert run.error is not None and "2 of the files failed" in str(run.error)
    nested = "front matter is nested too deeply to read"
    assert f"deep.md:1: {nested}" in run.out
    assert f"deep-toml.md:1: {nested}" in run.out
    assert "feb-30.md: date: cannot read '2026-02-30' as a date" in run.out
    assert "year-0.md: date: cannot read '0000-00-00' as a date" in run.out
    dates = dict(PostPage.objects.values_list("title", "date"))
    assert dates == {
        "二月三十日": day,
        "Year zero": day,
        "Fine": datetime.date(2024, 5, 6),
    }
