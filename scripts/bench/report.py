"""The bench's targets, checked against its figures, and the table it prints."""

from __future__ import annotations

import argparse

from scripts.bench.measure import RESULTS, ROOT, say

# Targets.
MAX_QUERIES = 10
RENDER_LISTING_MS = 15.0
RENDER_POST_MS = 25.0
POST_PAGE = "post"  # the math-heavy post; every other page type is a listing
CACHED_VS_STATIC = 0.6
SCALING = 1.3
MAX_RSS_MB = 200.0
IMPORT_SECONDS_PER_200 = 60.0


def targets(
    runs: list[dict], scales: list[dict], args: argparse.Namespace
) -> list[dict]:
    """Check every target; return [{target, status, failures}]."""

    def pages():
        for run in runs:
            for name, page in run["pages"].items():
                yield f"{run['database']}/{run['posts']} {name}", name, page

    checks: list[tuple[str, list[str] | None]] = []
    checks.append(
        (
            f"cached rps >= {CACHED_VS_STATIC:.0%} of the static floor, every page type",
            [
                f"{where}: {page['ratio']:.2f}"
                for where, _, page in pages()
                if page["ratio"] < CACHED_VS_STATIC
            ],
        )
    )
    checks.append(
        (
            f"render p50 < {RENDER_LISTING_MS:g} ms (listing pages), "
            f"< {RENDER_POST_MS:g} ms (math-heavy post); page cache off",
            [
                f"{where}: {page['render_ms']['p50']} ms"
                for where, name, page in pages()
                if page["render_ms"]["p50"]
                >= (RENDER_POST_MS if name == POST_PAGE else RENDER_LISTING_MS)
            ],
        )
    )
    if scales:
        label = ", ".join(f"{s['large']} vs {s['small']}" for s in scales)
        checks.append(
            (
                f"render p50 of the largest size within {SCALING}x of the smallest "
                f"({label})",
                [
                    f"{s['database']} {name}: {ratio}x"
                    for s in scales
                    for name, ratio in s["render_p50_ratio"].items()
                    if ratio > SCALING
                ],
            )
        )
    else:
        checks.append((f"render p50 scaling within {SCALING}x (needs 2 sizes)", None))
    checks.append(
        (
            f"worker RSS < {MAX_RSS_MB:g} MB",
            [
                f"{run['database']}/{run['posts']} {server}: {mb} MB"
                for run in runs
                for server, sizes in run["worker_rss_mb"].items()
                for mb in sizes
                if mb >= MAX_RSS_MB
            ],
        )
    )
    if args.import_posts:
        limit = IMPORT_SECONDS_PER_200 * args.import_posts / 200
        checks.append(
            (
                f"import of {args.import_posts} posts < {limit:g} s",
                [
                    f"{run['database']}/{run['posts']}: "
                    + (imported.get("error") or f"{imported['seconds']} s")
                    for run in runs
                    if (imported := run["import"])
                    and ("error" in imported or imported["seconds"] >= limit)
                ],
            )
        )
    checks.append(
        (
            f"queries <= {MAX_QUERIES} per page",
            [
                f"{where}: {page['queries']}"
                for where, _, page in pages()
                if page["queries"] > MAX_QUERIES
            ],
        )
    )
    return [
        {
            "target": target,
            "status": "SKIP" if failures is None else "FAIL" if failures else "PASS",
            "failures": failures or [],
        }
        for target, failures in checks
    ]


def print_report(results: dict) -> None:
    columns = (
        ("page", 10, "<"),
        ("queries", 7, ">"),
        ("p50 ms", 7, ">"),
        ("p95 ms", 7, ">"),
        ("mixed p50", 9, ">"),
        ("cached rps", 10, ">"),
        ("static rps", 10, ">"),
        ("ratio", 5, ">"),
        ("page br", 8, ">"),
        ("css+js br", 9, ">"),
    )
    header = "  ".join(f"{title:{align}{width}}" for title, width, align in columns)
    for run in results["runs"]:
        say(f"\n{run['database']} · {run['posts']:,} posts")
        say(header)
        for name, page in run["pages"].items():
            cells = (
                name,
                page["queries"],
                f"{page['render_ms']['p50']:.1f}",
                f"{page['render_ms']['p95']:.1f}",
                f"{page['mixed_ms']['p50']:.1f}",
                f"{page['cached']['rps']:.0f}",
                f"{page['static']['rps']:.0f}",
                f"{page['ratio']:.2f}",
                kib(page["weight"]["html_bytes"]),
                kib(page["weight"]["assets_bytes"]),
            )
            say(
                "  ".join(
                    f"{cell:{align}{width}}"
                    for cell, (_, width, align) in zip(cells, columns, strict=True)
                )
            )
        rss = "; ".join(
            f"{server} {' / '.join(f'{mb:.0f}' for mb in sizes)} MB"
            for server, sizes in run["worker_rss_mb"].items()
        )
        say(f"worker RSS: {rss}")
        if run["import"] and "error" in run["import"]:
            say(f"import_markdown failed: {run['import']['error']}")
        elif run["import"]:
            imported = run["import"]
            say(
                f"import_markdown: {imported['posts']} posts of "
                f"~{imported['chars_per_post']:,} chars in {imported['seconds']} s "
                f"({imported['posts_per_second']} posts/s)"
            )
        warnings = [
            f"{name}: page cache {page['page_cache']}"
            for name, page in run["pages"].items()
            if page["page_cache"] != "hit"
        ] + [
            f"{name} {kind}: {page[kind]['errors']} socket errors, "
            f"{page[kind]['non_2xx']} non-2xx"
            for name, page in run["pages"].items()
            for kind in ("cached", "static")
            if page[kind]["errors"] or page[kind]["non_2xx"]
        ]
        for warning in warnings:
            say(f"warning: {warning}")
    for comparison in results["scaling"]:
        print_comparison(comparison)
    say("\nTargets")
    for target in results["targets"]:
        say(f"  {target['status']}  {target['target']}")
        for failure in target["failures"]:
            say(f"          {failure}")
    say(f"\nResults: {RESULTS.relative_to(ROOT)}")


def print_comparison(comparison: dict) -> None:
    """Print the render p50 of both sizes timed in turns, and their ratio."""
    small, large = f"{comparison['small']:,}", f"{comparison['large']:,}"
    say(f"\n{comparison['database']} · {small} and {large} posts in turns")
    say(f"{'page':<12}  {small + ' p50':>12}  {large + ' p50':>12}  {'ratio':>6}")
    for name, page in comparison["render_ms"].items():
        say(
            f"{name:<12}  {page['small_ms']['p50']:>12.1f}  "
            f"{page['large_ms']['p50']:>12.1f}  {page['ratio']:>5.2f}x"
        )


def kib(size: int) -> str:
    return f"{size / 1024:.1f} kB"
