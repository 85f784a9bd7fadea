"""An import writes the pages and returns; the task workers render them.

With the database queue (as deployed), ``import_markdown`` saves the pages,
the originals and the redirects, and queues the renditions and the renders:
none is made in the command. A worker makes every rendition the templates
show, and the pages' bodies, so that a reader's request renders nothing.
"""

import subprocess

from django_tasks_db.models import DBTaskResult
from wagtail.images import get_image_model

from blog.models import PostPage
from blog.templatetags.picture_tags import picture_specs
from rendering import cache
from scripts.support.servers import PYTHON, ROOT, manage
from tests.queue import run_worker
from tests.vault.importer.conftest import draw
from tests.vault.importer.runs import outcomes

POST = """\
---
title: 共享内存 {n}
---

$$\\sum_{{i=0}}^{{{n}}} x_i$$

![tile](img/tile{n}.png)
"""


def write_vault(root, posts=3):
    root.mkdir(parents=True, exist_ok=True)
    for n in range(posts):
        (root / f"post{n}.md").write_text(POST.format(n=n), "utf-8")
        draw(root / "img" / f"tile{n}.png", (900 + n, 500), (40 * n, 90, 160))
    return root


def renditions():
    return sum(image.renditions.count() for image in get_image_model().objects.all())


def wanted_renditions():
    return sum(len(picture_specs(i)) for i in get_image_model().objects.all())


def test_the_import_queues_the_rendering_and_a_worker_does_it(
    tmp_path, run_import, database_queue, client
):
    vault = write_vault(tmp_path)
    cache.reset_stats()
    run = run_import(vault)

    assert outcomes(run.out)["created"] == (3, 0)
    assert "3 pages and 3 images queued for rendering" in run.out
    assert renditions() == 0
    # Each formula is typeset once, to report bad LaTeX; kept for the worker.
    assert cache.render_count("katex") == 3
    # A task per image, the pages in one: workers share them.
    assert DBTaskResult.objects.filter(task_path="blog.warming.warm_task").count() == 4

    run_worker()
    # Three widths each (480, 800 and the original) in AVIF and WebP.
    assert wanted_renditions() == 18
    assert renditions() == 18
    assert not DBTaskResult.objects.failed().exists()

    # The reader's request finds everything made: nothing is typeset for it.
    before = cache.render_count("katex")
    post = PostPage.objects.get(title="共享内存 1")
    html = client.get(post.url).content.decode()
    assert 'class="katex' in html and "<picture" in html
    assert cache.render_count("katex") == before


def test_an_image_goes_to_the_workers_as_soon_as_it_is_stored(
    tmp_path, run_import, database_queue
):
    # The workers encode the first figures while the import writes the rest:
    # the first post's figure is queued before the last post is published.
    run_import(write_vault(tmp_path))
    first_published = sorted(
        PostPage.objects.values_list("first_published_at", flat=True)
    )
    image_tasks = DBTaskResult.objects.filter(
        task_path="blog.warming.warm_task", args_kwargs__args__0=[]
    )
    queued = sorted(image_tasks.values_list("enqueued_at", flat=True))
    assert len(queued) == 3
    assert queued[0] < first_published[-1]
    (pages,) = DBTaskResult.objects.filter(task_path="blog.warming.warm_task").exclude(
        args_kwargs__args__0=[]
    )
    assert pages.enqueued_at > first_published[-1]


def test_without_a_queue_the_import_renders_as_before(tmp_path, run_import):
    vault = write_vault(tmp_path, posts=1)
    run = run_import(vault)
    assert "1 pages and 1 images rendered ahead of readers" in run.out
    assert renditions() == wanted_renditions() == 6


def test_wait_follows_the_work_of_a_real_worker(tmp_path):
    """`import_markdown --wait` beside `db_worker`, on an SQLite file, as `make run`."""
    vault = write_vault(tmp_path / "vault")
    site = tmp_path / "site"
    site.mkdir()
    env = {
        "DJANGO_SETTINGS_MODULE": "scripts.support.import_bench_settings",
        "BENCH_SITE_DIR": str(site),
        "PATH": "/usr/bin:/bin",
    }

    manage(env, "migrate", "--noinput", "-v", "0")
    worker = subprocess.Popen(  # noqa: S603
        [PYTHON, "manage.py", "db_worker", "--no-reload", "--no-startup-delay"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        done = manage(env, "import_markdown", str(vault), "--wait", timeout=120)
    finally:
        worker.terminate()
        worker.wait(timeout=30)
    # Three posts' body checks, three figures' renditions, one batch of pages.
    assert "Waiting for the task workers: 7 tasks" in done
    assert "Rendered: 7 tasks done." in done
    check = manage(
        env,
        "shell",
        "-c",
        "from wagtail.images import get_image_model\n"
        "print(sum(i.renditions.count() for i in get_image_model().objects.all()))",
    )
    assert check.strip().splitlines()[-1] == "18"
