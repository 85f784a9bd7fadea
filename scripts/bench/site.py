"""The Django side of `make bench`: build a synthetic site, then inspect its pages.

Run by scripts/bench.py in a subprocess whose environment names the database
and the settings (production):

    python scripts/bench/site.py generate --posts 1000 --manifest site.json
    python scripts/bench/site.py inspect --manifest site.json --html-dir DIR --out pages.json

`generate` fills a freshly migrated database: 4 sections, 30 series (25 in the
sections), 50 tags and the posts, 3 tags each. Sections, series and one
math-heavy post (~300 formulas, ~50 code blocks) are created the normal way
(`add_child`, a published revision); that post is also the template of the
others, which are bulk-inserted: `wagtailcore_page` rows with their treebeard
path, depth and URL path, then the matching `blog_postpage` and `blog_posttag`
rows, then each parent's `numchild`. The posts are indexed for search with the
model's own index code (`search_text` through the search backend's `add_bulk`),
in chunks. The manifest lists the URL of each page type and what it must show
(counts and titles the generator knows independently of the database).

`inspect` requests every page type in-process with Django's test client:
checks the manifest's expectations, counts SQL queries of a request after a
warm-up, and saves each page's bytes (and gzip and Brotli copies, which
WhiteNoise serves to clients that accept them) for the static-file floor.
"""

from __future__ import annotations

import argparse
import datetime
import gzip
import json
import os
import random
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from itertools import islice
from pathlib import Path
from urllib.parse import quote

import brotli

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")

import django  # noqa: E402

django.setup()

from django.db import connection, transaction  # noqa: E402
from django.db.models import F  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402
from django.utils import timezone  # noqa: E402
from django.utils.html import escape  # noqa: E402
from django.utils.text import slugify  # noqa: E402
from taggit.models import Tag  # noqa: E402
from wagtail.models import Page  # noqa: E402
from wagtail.search.backends import get_search_backend  # noqa: E402
from wagtail.signals import page_published  # noqa: E402

from blog.models import (  # noqa: E402
    HomePage,
    PostPage,
    PostTag,
    SeriesPage,  # noqa: E402
)
from scripts.bench import content  # noqa: E402

BATCH = 500
# Where posts go: a share at the top level, a share directly in the sections,
# the rest in the series.
TOP_LEVEL_SHARE = 0.1
SECTION_SHARE = 0.2
HOST = "127.0.0.1"


def batched(items, size: int) -> Iterator[list]:
    """Yield lists of `size` items (itertools.batched is Python 3.12)."""
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk


def say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def aware(date: datetime.date) -> datetime.datetime:
    """Return 09:00 on `date` in the site's time zone."""
    return datetime.datetime.combine(
        date, datetime.time(9), tzinfo=timezone.get_default_timezone()
    )


class Generator:
    """Builds the synthetic site and records what each page must show."""

    def __init__(self, posts: int, seed: int):
        self.total = posts
        self.rng = random.Random(seed)  # noqa: S311 (content, not secrets)
        # Posts in primary-key order: (spec, parent key), parent key "" = home.
        self.posts: list[tuple[content.PostSpec, str]] = []

    def run(self) -> dict:
        started = time.perf_counter()
        # Nothing is in the page cache of a fresh database: publishing has
        # nothing to purge (pagecache/purge.py connects with this uid).
        page_published.disconnect(dispatch_uid="pagecache")
        home = HomePage.objects.get()
        with transaction.atomic():
            parents = self.make_tree(home)
            self.make_tags()
            math_post = self.make_math_post(parents["cuda"])
            self.bulk_posts(parents, math_post)
        built = time.perf_counter()
        self.index_posts()
        self.analyze()
        indexed = time.perf_counter()
        say(
            f"  {self.total} posts: built in {built - started:.1f} s, "
            f"indexed for search in {indexed - built:.1f} s"
        )
        return self.manifest(math_post)

    def make_tree(self, home: HomePage) -> dict[str, Page]:
        """Create the sections and series; return them by key ("" is home)."""
        parents: dict[str, Page] = {"": home}
        for slug, title in content.SECTIONS:
            section = SeriesPage(
                title=title,
                slug=slug,
                intro=f"<p>{title}：文章按发布日期排列，最新在前。</p>",
                ordering=SeriesPage.Ordering.NEWEST,
            )
            parents[slug] = home.add_child(instance=section)
            home.refresh_from_db()
        for slug, title, section in content.SERIES:
            parent = parents[section or ""]
            series = SeriesPage(
                title=title,
                slug=slug,
                intro=f"<p>{title}：按阅读顺序排列的系列文章。</p>",
                ordering=SeriesPage.Ordering.EXPLORER,
            )
            parents[f"{section}/{slug}" if section else slug] = parent.add_child(
                instance=series
            )
            parent.refresh_from_db()
        return parents

    def make_tags(self) -> None:
        Tag.objects.bulk_create(
            [
                Tag(name=name, slug=slugify(name, allow_unicode=True))
                for name in content.TAG_NAMES
            ]
        )
        self.tag_ids = dict(Tag.objects.values_list("name", "pk"))

    def make_math_post(self, section: Page) -> PostPage:
        """Create the long math post the normal way: add_child, then publish."""
        spec = content.math_heavy_spec(self.rng)
        post = PostPage(
            title=spec.title,
            slug=spec.slug,
            summary=spec.summary,
            date=spec.date,
            updated=spec.updated,
            body=spec.body,
        )
        section.add_child(instance=post)
        post.tags.set(list(spec.tags))
        post.save_revision().publish()
        self.posts.append((spec, "cuda"))
        return post

    def parent_keys(self) -> Iterator[str]:
        """Yield the parent of each bulk post: top level, a section or a series."""
        sections = [slug for slug, _ in content.SECTIONS]
        series = [f"{s}/{slug}" if s else slug for slug, _, s in content.SERIES]
        weights = [self.rng.uniform(0.3, 1.7) for _ in series]
        for _ in range(self.total - 1):
            draw = self.rng.random()
            if draw < TOP_LEVEL_SHARE:
                yield ""
            elif draw < TOP_LEVEL_SHARE + SECTION_SHARE:
                yield self.rng.choice(sections)
            else:
                yield self.rng.choices(series, weights)[0]

    def bulk_posts(self, parents: dict[str, Page], template: PostPage) -> None:
        """Insert every other post as rows, the math post's fields as the template."""
        parents = {key: Page.objects.get(pk=page.pk) for key, page in parents.items()}
        next_step = {}
        for key, parent in parents.items():
            last = parent.get_last_child()
            next_step[key] = (
                Page._str2int(last.path[-Page.steplen :]) + 1 if last else 1
            )
        added: Counter[str] = Counter()
        pages, details = [], []
        for number, key in enumerate(self.parent_keys(), start=1):
            spec = content.post_spec(self.rng, number)
            parent = parents[key]
            path = Page._get_path(parent.path, parent.depth + 1, next_step[key])
            next_step[key] += 1
            added[key] += 1
            pages.append(
                Page(
                    title=spec.title,
                    draft_title=spec.title,
                    slug=spec.slug,
                    path=path,
                    depth=parent.depth + 1,
                    numchild=0,
                    url_path=f"{parent.url_path}{spec.slug}/",
                    content_type_id=template.content_type_id,
                    locale_id=template.locale_id,
                    owner_id=template.owner_id,
                    live=True,
                    has_unpublished_changes=False,
                    first_published_at=aware(spec.date),
                    last_published_at=aware(spec.updated),
                )
            )
            details.append(spec)
            self.posts.append((spec, key))
        post_fields = PostPage._meta.local_concrete_fields
        for chunk in batched(zip(pages, details, strict=True), BATCH):
            rows = Page.objects.bulk_create([page for page, _ in chunk])
            specs = [spec for _, spec in chunk]
            posts = [
                PostPage(
                    page_ptr_id=row.pk,
                    summary=spec.summary,
                    date=spec.date,
                    updated=spec.updated,
                    body=spec.body,
                )
                for row, spec in zip(rows, specs, strict=True)
            ]
            # QuerySet.bulk_create refuses multi-table models: insert only the
            # post's own table, the page rows above being its parents.
            PostPage._base_manager._insert(posts, fields=post_fields)
            PostTag.objects.bulk_create(
                [
                    PostTag(
                        content_object_id=row.pk,
                        tag_id=self.tag_ids[name],
                        date=spec.date,
                    )
                    for row, spec in zip(rows, specs, strict=True)
                    for name in spec.tags
                ]
            )
        for key, count in added.items():
            Page.objects.filter(pk=parents[key].pk).update(
                numchild=F("numchild") + count
            )

    def index_posts(self) -> None:
        """Index the bulk-inserted posts with the model's own search code.

        The backend's indexer asks each object for `search_text` three times
        (for the title, body and autocomplete columns); it is computed once per
        post here and handed back, which is the same text at a third of the
        cost (segmenting is most of the work).
        """
        backend = get_search_backend()
        ids = list(PostPage.objects.order_by("pk").values_list("pk", flat=True))
        for chunk in batched(ids, BATCH):
            posts = list(PostPage.objects.filter(pk__in=chunk))
            for post in posts:
                post.search_text = (lambda text: lambda: text)(post.search_text())
            with transaction.atomic():
                backend.add_bulk(PostPage, posts)

    @staticmethod
    def analyze() -> None:
        """Give the query planner statistics of the tables just filled.

        A live PostgreSQL database has them (autovacuum analyzes tables as they
        grow); one bulk-loaded a moment ago does not, and without them the
        planner picks sequential scans: 50 ms for home at 10,000 posts, 19 ms
        once analyzed. SQLite's plans are the same either way.
        """
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")

    def manifest(self, math_post: PostPage) -> dict:
        """Return the URL of each page type and what it must show."""
        ordered = [(seq, spec, key) for seq, (spec, key) in enumerate(self.posts)]

        def newest(items, by_updated: bool = False) -> str:
            def order(item):
                seq, spec, _ = item
                first = spec.updated if by_updated else spec.date
                return (first, spec.date, seq)

            return escape(max(items, key=order)[1].title)

        under: dict[str, list] = defaultdict(list)
        for item in ordered:
            key = item[2]
            under[key].append(item)
            if "/" in key:
                under[key.split("/")[0]].append(item)
        section = content.SECTIONS[0][0]
        # The section's first series with a post (a small site may leave some empty).
        series = next(
            (
                key
                for slug, _, s in content.SERIES
                if s == section and under[key := f"{s}/{slug}"]
            ),
            None,
        )
        if series is None:
            raise SystemExit(
                f"{self.total} posts left every series of /{section}/ empty: "
                "ask for more posts"
            )
        tag = "cuda"
        tagged = [item for item in ordered if tag in item[1].tags]
        tag_counts = Counter(name for _, spec, _ in ordered for name in spec.tags)
        years = Counter(spec.date.year for _, spec, _ in ordered)
        latest_year = max(years)
        query = content.SEARCH_QUERY
        return {
            "posts": len(ordered),
            "search_query": query,
            "pages": {
                "home": {
                    "url": "/",
                    "expect": [
                        newest(ordered, by_updated=True),
                        f"{len(under[section])} 篇文章",
                    ],
                },
                "section": {
                    "url": f"/{section}/",
                    "expect": [
                        f'<p class="count">{len(under[section])} 篇文章</p>',
                        newest(under[section]),
                    ],
                },
                "series": {
                    "url": f"/{series}/",
                    "expect": [
                        f'<p class="count">{len(under[series])} 篇文章</p>',
                        escape(under[series][0][1].title),
                    ],
                },
                "post": {
                    "url": math_post.url_path.removeprefix("/home"),
                    "expect": [escape(math_post.title)],
                    "expect_counts": {'<span class="katex">': 300},
                },
                "tag_index": {
                    "url": "/tags/",
                    "expect": [
                        f'#{tag}</a> <span class="count">{tag_counts[tag]}</span>'
                    ],
                },
                "tag": {"url": f"/tags/{tag}/", "expect": [newest(tagged)]},
                "archive": {
                    "url": "/archive/",
                    "expect": [
                        newest(ordered),
                        f'{latest_year} 年 <span class="count">{years[latest_year]} 篇</span>',
                    ],
                },
                "search": {
                    "url": f"/search/?q={quote(query)}",
                    "expect": [f"<mark>{query}</mark>", "找到 "],
                },
                "feed": {"url": "/feed/", "expect": [newest(ordered)]},
                # The index, and its first file of pages (tree order, home first).
                "sitemap": {
                    "url": "/sitemap.xml",
                    "expect": ["/sitemap-pages.xml</loc>"],
                    "expect_counts": {"<sitemap>": len(ordered) // 200},
                },
                "sitemap_file": {
                    "url": "/sitemap-pages.xml",
                    "expect": ["<loc>http://"],
                    "expect_counts": {"<url>": min(200, len(ordered))},
                },
            },
        }


def inspect(manifest: dict, html_dir: Path) -> dict:
    """Check every page type, count its queries, save its bytes; return the figures."""
    client = Client(HTTP_HOST=HOST)
    html_dir.mkdir(parents=True, exist_ok=True)
    figures = {}
    for name, page in manifest["pages"].items():
        # Warm-up: render cache, content types, site root paths.
        response = client.get(page["url"])
        if response.status_code != 200:
            raise SystemExit(f"{page['url']} answered {response.status_code}")
        with CaptureQueriesContext(connection) as queries:
            response = client.get(page["url"])
        body = response.content
        text = body.decode()
        missing = [want for want in page["expect"] if want not in text]
        missing += [
            f"{want!r} at least {least} times (found {text.count(want)})"
            for want, least in page.get("expect_counts", {}).items()
            if text.count(want) < least
        ]
        if missing:
            raise SystemExit(f"{page['url']} does not show: " + "; ".join(missing))
        suffix = ".xml" if "xml" in response["Content-Type"] else ".html"
        static = html_dir / f"{name}{suffix}"
        static.write_bytes(body)
        static.with_name(static.name + ".gz").write_bytes(
            gzip.compress(body, 6, mtime=0)
        )
        static.with_name(static.name + ".br").write_bytes(
            brotli.compress(body, mode=brotli.MODE_TEXT)
        )
        figures[name] = {
            "url": page["url"],
            "queries": len(queries),
            "html_bytes": len(body),
            "static_path": f"{html_dir.name}/{static.name}",
        }
        say(f"  {name:<10} {page['url']:<45} {len(queries):>3} queries  ok")
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    generate = commands.add_parser("generate", help="fill a migrated database")
    generate.add_argument("--posts", type=int, required=True)
    generate.add_argument("--seed", type=int, default=1)
    generate.add_argument("--manifest", type=Path, required=True)
    check = commands.add_parser("inspect", help="check, count queries, save pages")
    check.add_argument("--manifest", type=Path, required=True)
    check.add_argument("--html-dir", type=Path, required=True)
    check.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.command == "generate":
        manifest = Generator(args.posts, args.seed).run()
        args.manifest.write_text(json.dumps(manifest, ensure_ascii=False, indent=2))
    else:
        manifest = json.loads(args.manifest.read_text())
        figures = inspect(manifest, args.html_dir)
        args.out.write_text(json.dumps(figures, ensure_ascii=False, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
