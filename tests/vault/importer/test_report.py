"""The import summary: warnings counted by kind, then listed by file."""

from io import StringIO

from django.core.management import call_command

from vault.importer.report import POST, Issue, Report, message_kind


def mixed_report() -> Report:
    report = Report()
    report.record(POST, "created", "cuda/a.md")
    report.record(POST, "created", "notes/b.md")
    report.warn(
        [
            Issue("remote image not fetched: https://example.com/a.png", 12),
            Issue("missing image: img/one.png", 3),
            Issue("remote image not fetched: https://example.com/b.png (timed out)", 4),
            Issue("footnote [^ddp] has no definition", 30),
        ],
        "cuda/a.md",
    )
    report.warn(
        [
            Issue("missing image: C:\\Users\\me\\Desktop\\two.png", 8),
            Issue("remote image not fetched: https://cdn.example.org/x/y.jpg", 2),
            Issue("formula kept with errors: KaTeX parse error: Undefined control", 9),
            Issue(
                "code language 'cypher' is not offered; imported as text",
                20,
            ),
            Issue("code language 'thrift' is not offered; imported as text", 5),
            Issue("a custom message", 1, kind="alias skipped"),
        ],
        "notes/b.md",
    )
    return report


def test_warnings_are_counted_by_kind_most_frequent_first():
    report = mixed_report()
    assert report.kinds() == [
        (3, "remote image not fetched: …"),
        (2, "code language … is not offered; imported as text"),
        (2, "missing image: …"),
        (1, "alias skipped"),
        (1, "footnote … has no definition"),
        (1, "formula kept with errors: KaTeX parse error"),
    ]


def test_the_summary_shows_the_kinds_before_the_full_list_by_file():
    text = mixed_report().format()
    lines = text.splitlines()
    assert "warnings: 10" in text
    kinds = lines.index("Warnings by kind:")
    assert lines[kinds + 1 : kinds + 4] == [
        "  3  remote image not fetched: …",
        "  2  code language … is not offered; imported as text",
        "  2  missing image: …",
    ]
    listed = lines[lines.index("Warnings, by file:") + 1 :]
    # Each file's warnings together, in line order, each naming file and line.
    assert listed[:4] == [
        "  cuda/a.md:3: missing image: img/one.png",
        "  cuda/a.md:4: remote image not fetched: https://example.com/b.png "
        "(timed out)",
        "  cuda/a.md:12: remote image not fetched: https://example.com/a.png",
        "  cuda/a.md:30: footnote [^ddp] has no definition",
    ]
    assert listed[4] == "  notes/b.md:1: a custom message"
    assert len(listed) == 10
    assert kinds < lines.index("Warnings, by file:")


def test_a_report_without_warnings_has_no_warning_sections():
    report = Report()
    report.record(POST, "unchanged", "a.md")
    assert "Warnings" not in report.format()


def test_kinds_leave_out_quoted_text_numbers_paths_and_urls():
    assert message_kind("not valid UTF-8: byte 0xff at column 5") == (
        "not valid UTF-8: byte … at column …"
    )
    assert message_kind(
        "updated (2024-01-01) is before date (2025-03-02); using 2025-03-02"
    ) == ("updated … is before date …; using …")
    assert message_kind("<div> is never closed") == "… is never closed"
    assert message_kind("image ../../etc/passwd is outside the vault") == (
        "image … is outside the vault"
    )
    assert message_kind("title longer than 255 characters; shortened") == (
        "title longer than … characters; shortened"
    )
    # A library's own message after the kind is a detail, left out.
    assert message_kind("internal error: RuntimeError: disk full") == (
        "internal error: RuntimeError"
    )
    # A message with nothing variable is its own kind.
    assert message_kind("an image inside a list is placed after the list") == (
        "an image inside a list is placed after the list"
    )


def test_the_import_summary_of_a_vault_counts_its_broken_links(
    broken_vault, run_import
):
    run = run_import(broken_vault)
    lines = run.out.splitlines()
    kinds = lines[lines.index("Warnings by kind:") + 1 :]
    assert "  1  broken link: no such file" in kinds
    assert "  1  broken link: that page was not imported" in kinds
    assert "  1  missing image: …" in kinds


class Terminal(StringIO):
    """Output that says it is a terminal, as a user's shell is."""

    def isatty(self) -> bool:
        return True


def import_on_a_terminal(vault, *args):
    out, err = Terminal(), Terminal()
    call_command("import_markdown", str(vault), *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_a_progress_bar_runs_on_a_terminal_and_leaves_the_summary_alone(
    vault, run_import
):
    out, err = import_on_a_terminal(vault)
    # The bar is redrawn in place on stderr, reaches every file, and is erased.
    assert "/16 [" in err  # 11 posts and 5 series
    assert "links, search index" in err  # what the bar waits for at the end
    assert err.endswith("\r")  # and erased
    assert "\n" not in err
    assert "\r" not in out
    assert "\x1b" not in out
    assert out.splitlines()[1].split() == ["posts", "series"]


def test_no_progress_bar_when_asked_or_when_output_is_not_a_terminal(vault, run_import):
    out, err = import_on_a_terminal(vault, "--no-progress")
    assert err == ""
    assert "created" in out
    again = run_import(vault)  # stdout and stderr are files here
    assert again.err == ""
    assert "unchanged" in again.out
