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


def test_stray_lines_and_alias_bombs_in_front_matter_fail_no_file(
    tmp_path, run_import, home, client
):
    vault = tmp_path / "vault"
    vault.mkdir()
    day = datetime.date(2025, 3, 14)
    write(
        vault,
        "escaped.md",
        "---\ntitle: 从 Notion 导出\ntags:\n\\- CUDA\n\\- 笔记\n"
        "这一行是正文，不小心写进了头部\ndate: 2024-06-01\n---\n正文第一段\n",
        day,
    )
    laughs = ['a0: &a0 ["ha", "ha", "ha", "ha", "ha", "ha", "ha", "ha", "ha"]']
    laughs += [
        f"a{n}: &a{n} [" + ", ".join([f"*a{n - 1}"] * 9) + "]" for n in range(1, 9)
    ]
    write(
        vault,
        "laughs.md",
        "---\n"
        + "\n".join(laughs)
        + "\ntitle: Laughs\nsummary: *a8\n---\nStill here\n",
        day,
    )
    write(vault, "unclosed.md", "---\ntitle: Forgot the fence\n\nThe text.\n", day)

    run = run_import(vault)

    assert run.error is None, run.out
    pages = {page.source_path: page for page in PostPage.objects.all()}
    assert set(pages) == {"escaped.md", "laughs.md", "unclosed.md"}
    escaped = pages["escaped.md"]
    assert escaped.title == "从 Notion 导出"
    assert escaped.date == datetime.date(2024, 6, 1)
    assert sorted(tag.name for tag in escaped.tags.all()) == ["CUDA", "笔记"]
    assert "正文第一段" in client.get(escaped.url).text
    assert (
        "escaped.md:6: front matter line dropped, not key: value: "
        "'这一行是正文，不小心写进了头部'" in run.out
    )
    assert pages["laughs.md"].title == "Laughs"
    assert len(pages["laughs.md"].summary) < 100
    assert "laughs.md:1: front matter YAML aliases refused" in run.out
    assert "Still here" in client.get(pages["laughs.md"].url).text
    unclosed = client.get(pages["unclosed.md"].url).text
    assert "Forgot the fence" in unclosed and "The text." in unclosed
    assert "unclosed.md:1: front matter opened with --- is never closed" in run.out
