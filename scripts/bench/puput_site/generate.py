"""Fill a freshly migrated puput blog with the bench's posts; write its manifest.

Run by scripts/bench_puput.py with puput's virtualenv, from the repository's
root, the settings named by DJANGO_SETTINGS_MODULE:

    python -m scripts.bench.puput_site.generate --posts 1000 --manifest site.json

`puput_initial_data` makes the blog (/blog/), as puput's setup says; then the
posts are its entries, made the normal way (`add_child`): first the bench's
math-heavy post, the same text as ours from the same seed
(scripts/bench/content.py), then ordinary ones. puput has no math and no code
highlighting, so a body is the post's text as rich text: formulas as their TeX
source, code in <pre><code>. Each entry has its dates spread over ten years,
one category (a section or series of ours) and three tags. The manifest gives
the math-heavy entry's URL, as puput links it, and what it must show.
"""

from __future__ import annotations

import argparse
import datetime
import json
import random
import sys
import time
from html import escape
from pathlib import Path

import django

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import transaction  # noqa: E402
from django.utils.text import slugify  # noqa: E402
from puput.models import BlogPage, Category, CategoryEntryPage, EntryPage, Tag  # noqa: E402
from puput.urls import get_entry_url  # noqa: E402
from wagtail.models import Site  # noqa: E402

from scripts.bench import content  # noqa: E402


def say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def body_html(blocks: list[dict]) -> str:
    """Return a post's body as puput's rich text: its text, formulas as TeX."""
    parts = []
    for block in blocks:
        kind, value = block["type"], block["value"]
        if kind == "heading":
            level = value["level"]
            parts.append(f"<{level}>{escape(value['text'])}</{level}>")
        elif kind == "paragraph":
            parts.append(value)  # rich text already, inline math as $…$
        elif kind == "math":
            parts.append(f"<p>$${escape(value['tex'])}$$</p>")
        elif kind == "code":
            parts.append(
                f"<p><code>{escape(value['filename'])}</code></p>"
                f"<pre><code>{escape(value['code'])}</code></pre>"
            )
        elif kind == "callout":
            parts.append(
                f"<blockquote><p><b>{escape(value['title'])}</b></p>"
                f"{value['body']}</blockquote>"
            )
        else:
            raise ValueError(f"no rich-text form for a {kind} block")
    return "".join(parts)


def aware(date: datetime.date) -> datetime.datetime:
    return datetime.datetime.combine(date, datetime.time(9), tzinfo=datetime.UTC)


def make_categories() -> list[Category]:
    """Create our sections and series as puput categories; return them."""
    sections = {
        slug: Category.objects.create(name=title, slug=slug)
        for slug, title in content.SECTIONS
    }
    series = [
        Category.objects.create(
            name=title, slug=slug, parent=sections[section] if section else None
        )
        for slug, title, section in content.SERIES
    ]
    return [*sections.values(), *series]


def make_entry(
    spec: content.PostSpec, category: Category, tags: dict, owner
) -> EntryPage:
    published = aware(spec.date)
    entry = EntryPage(
        title=spec.title,
        slug=spec.slug,
        body=body_html(spec.body),
        excerpt=f"<p>{escape(spec.summary)}</p>",
        date=published,
        owner=owner,
        first_published_at=published,
        last_published_at=aware(spec.updated),
        entry_categories=[CategoryEntryPage(category=category)],
    )
    entry.tags.add(*(tags[name] for name in spec.tags))
    return entry


def generate(posts: int, seed: int) -> dict:
    """Make the blog and its entries; return the manifest."""
    started = time.perf_counter()
    rng = random.Random(seed)  # noqa: S311 (content, not secrets)
    call_command("puput_initial_data")
    blog = BlogPage.objects.get()
    owner = get_user_model().objects.create_user("editor")
    with transaction.atomic():
        categories = make_categories()
        tags = {
            name: Tag.objects.create(name=name, slug=slugify(name, allow_unicode=True))
            for name in content.TAG_NAMES
        }
        math = content.math_heavy_spec(rng)
        math_entry = blog.add_child(
            instance=make_entry(math, categories[0], tags, owner)
        )
        for number in range(1, posts):
            spec = content.post_spec(rng, number)
            blog.add_child(
                instance=make_entry(spec, rng.choice(categories), tags, owner)
            )
    root = Site.objects.get(is_default_site=True).root_page
    say(f"  {posts} puput entries in {time.perf_counter() - started:.1f} s")
    return {
        "posts": posts,
        "seed": seed,
        "post": {
            "url": get_entry_url(math_entry, blog.page_ptr, root),
            "title": math.title,
            "expect": [escape(math.title)],
            "body_chars": len(math_entry.body),
        },
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--posts", type=int, required=True)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--manifest", type=Path, required=True)
    args = parser.parse_args()
    manifest = generate(args.posts, args.seed)
    args.manifest.write_text(json.dumps(manifest, ensure_ascii=False, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
