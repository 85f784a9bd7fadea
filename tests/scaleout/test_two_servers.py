"""Two app servers, one PostgreSQL, one Redis, one bucket: what one does, the other serves.

Each server is gunicorn with the production settings (`config/gunicorn.py`),
on its own port of 127.0.0.1, as the deployment guide runs them. They share a
fresh PostgreSQL database, a Redis database and an S3 bucket (moto's server).
Requests carry `X-Forwarded-Proto: https`, as from the TLS proxy in front.
"""

import json
import os
import secrets
import subprocess
import time
from urllib.parse import urlsplit

import boto3
import pytest
import requests

from scripts.bench.traffic import PROXY, AdminClient
from scripts.support.servers import (
    DROPPED_ENV,
    GUNICORN,
    ROOT,
    TaskWorkers,
    collect_static,
    free_port,
    fresh_postgres_database,
    manage,
    wait_until_serving,
)
from tests.blog.test_object_storage import (  # noqa: F401 - a fixture
    CREDENTIALS,
    PUBLIC_READ,
    png,
    s3_endpoint,
)
from tests.forwarder import Forwarder

DATABASE_URL = os.environ.get("DATABASE_URL", "")
REDIS_URL = os.environ.get("REDIS_URL", "")
pytestmark = pytest.mark.skipif(
    not (DATABASE_URL.startswith("postgres") and REDIS_URL),
    reason="needs DATABASE_URL (PostgreSQL) and REDIS_URL",
)

EDITOR, PASSWORD = "ops", "a-long-passphrase-for-two-servers"  # noqa: S105
DRAFT = "双服务器上的草稿"
PUBLIC = "Redis 中断时设为私密的文章"
BUCKET = "two-servers-media"


@pytest.fixture(scope="module")
def redis_link():
    """The servers' way to Redis, which a test may cut (and open again)."""
    url = urlsplit(REDIS_URL)
    link = Forwarder((url.hostname or "127.0.0.1", url.port or 6379))
    link.open()
    yield link
    link.cut()


@pytest.fixture(scope="module")
def servers(s3_endpoint, redis_link, tmp_path_factory):  # noqa: F811
    s3 = boto3.client(
        "s3", endpoint_url=s3_endpoint, region_name="us-east-1", **_boto(CREDENTIALS)
    )
    s3.create_bucket(Bucket=BUCKET)
    s3.put_bucket_policy(
        Bucket=BUCKET,
        Policy=json.dumps(PUBLIC_READ).replace("blog-media", BUCKET),
    )
    folder = tmp_path_factory.mktemp("two-servers")
    name = f"scaleout_{secrets.token_hex(4)}"
    processes = []
    try:
        with fresh_postgres_database(DATABASE_URL, name) as database_url:
            env = server_env(database_url, s3_endpoint, redis_link.port)
            prepare(env)
            urls = []
            for index in range(2):
                port = free_port()
                log = (folder / f"server-{index}.log").open("w")
                process = subprocess.Popen(  # noqa: S603
                    [str(GUNICORN), "-c", "config/gunicorn.py", "config.wsgi"],
                    cwd=ROOT,
                    env={**env, "BIND": f"127.0.0.1:{port}"},
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )
                processes.append(process)
                url = f"http://127.0.0.1:{port}"
                wait_until_serving(process, url + "/healthz", 60, lambda: "")
                urls.append(url)
            # Two task workers on the same database: the renditions, the search
            # and reference indexes, the CDN purges, as deployed.
            try:
                with TaskWorkers(env, folder, count=2) as workers:
                    # What preparing the site queued (the demo's renditions,
                    # the search index the admin's search reads) done first.
                    workers.wait_until_idle(database_url, timeout=180)
                    yield urls
            finally:
                for process in processes:
                    process.terminate()
                    process.wait(timeout=30)
    finally:
        for item in s3.list_objects_v2(Bucket=BUCKET).get("Contents", []):
            s3.delete_object(Bucket=BUCKET, Key=item["Key"])
        s3.delete_bucket(Bucket=BUCKET)


def server_env(database_url, s3_url, redis_port):
    """Return the servers' environment: production settings on the shared parts."""
    env = {k: v for k, v in os.environ.items() if k not in DROPPED_ENV}
    env.update(
        CREDENTIALS,
        DJANGO_SETTINGS_MODULE="config.settings.production",
        PYTHONPATH=str(ROOT),
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="127.0.0.1",
        DATABASE_URL=database_url,
        # A Redis database of their own: test workers take 1, 2, … from the
        # first (config/settings/test.py), and clear it between tests.
        REDIS_URL=f"redis://127.0.0.1:{redis_port}/15",
        AWS_STORAGE_BUCKET_NAME=BUCKET,
        AWS_S3_ENDPOINT_URL=s3_url,
        AWS_S3_REGION_NAME="us-east-1",
        SECURE_SSL_REDIRECT="false",
        LOG_LEVEL="WARNING",
        WEB_CONCURRENCY="2",
    )
    return env


def prepare(env):
    """Fill the shared database: the demo blog, an editor and one draft."""
    manage(env, "migrate", "--noinput", "-v", "0")
    collect_static(env)
    manage(env, "load_demo", "-v", "0")
    manage(
        env,
        "shell",
        "-c",
        "from django.contrib.auth import get_user_model;"
        "from blog.models import SeriesPage;"
        "from blog.models import PostPage;"
        "import datetime;"
        f"get_user_model().objects.create_superuser({EDITOR!r}, 'o@example.com', "
        f"{PASSWORD!r});"
        "cuda = SeriesPage.objects.get(slug='cuda');"
        f"post = PostPage(title={DRAFT!r}, slug='two-servers', live=False, "
        "summary='两台服务器', date=datetime.date(2026, 12, 1));"
        "cuda.add_child(instance=post); post.save_revision();"
        f"public = PostPage(title={PUBLIC!r}, slug='public', "
        "summary='公开', date=datetime.date(2026, 12, 1));"
        "cuda.add_child(instance=public); public.save_revision().publish()",
    )


def _boto(credentials):
    return {
        "aws_access_key_id": credentials["AWS_ACCESS_KEY_ID"],
        "aws_secret_access_key": credentials["AWS_SECRET_ACCESS_KEY"],
    }


def get(url):
    return requests.get(url, headers=PROXY, timeout=30, allow_redirects=False)


def test_a_publish_through_one_server_is_served_by_the_other_within_a_second(servers):
    one, other = servers
    # Both have the listings and the draft's URL in their page cache (Redis).
    for server in servers:
        assert DRAFT not in get(f"{server}/cuda/").text
        assert get(f"{server}/cuda/two-servers/").status_code == 404
    editor = AdminClient(one)
    editor.log_in(EDITOR, PASSWORD)
    page_id = _page_id(editor, DRAFT)
    published = editor.post(
        f"/admin/bulk/wagtailcore/page/publish/?id={page_id}&next=/admin/", {}
    )
    assert published.status_code == 302, published.text[:500]

    deadline = time.monotonic() + 1.0
    while True:
        post, listing = get(f"{other}/cuda/two-servers/"), get(f"{other}/cuda/")
        if post.status_code == 200 and DRAFT in listing.text:
            break
        assert time.monotonic() < deadline, (
            "the other server still serves the old pages"
        )
        time.sleep(0.05)
    assert DRAFT in post.text


def test_a_page_made_private_while_redis_was_cut_off_is_not_served_when_it_is_back(
    servers, redis_link
):
    one, other = servers
    url = "/cuda/public/"
    for server in servers:
        get(f"{server}{url}")
        cached = get(f"{server}{url}")
        assert cached.headers["X-Page-Cache"] == "hit"
        assert PUBLIC in cached.text
    editor = AdminClient(one)
    editor.log_in(EDITOR, PASSWORD)
    page_id = _page_id(editor, PUBLIC)

    redis_link.cut()  # Redis keeps the public copy; neither server reaches it
    try:
        made = editor.post(
            f"/admin/pages/{page_id}/privacy/", {"restriction_type": "login"}
        )
        assert made.status_code == 200, made.text[:500]
        # A server asks the database for pending purges once a second: one
        # that asked just before the change may serve the old copy until then.
        time.sleep(1.5)
    finally:
        redis_link.open()  # back, with the public copy still in it

    for server in (other, one):
        answer = get(f"{server}{url}")
        assert answer.status_code == 302, (server, answer.headers)
        assert "/login/" in answer.headers["Location"]
        assert PUBLIC not in answer.text


def test_an_image_uploaded_through_one_server_is_served_by_the_other(servers):
    one, other = servers
    editor = AdminClient(one)
    editor.log_in(EDITOR, PASSWORD)
    content = png()
    uploaded = editor.post(
        "/admin/images/add/",
        {"title": "two-servers-image"},
        files={"file": ("two-servers.png", content, "image/png")},
    )
    assert uploaded.status_code == 302, uploaded.text[:500]
    # The other server lists it (the database) and draws its thumbnail from
    # the original in the bucket; the reader's browser fetches both from there.
    # The same session, on the other server.
    elsewhere = AdminClient(other)
    elsewhere.cookies = editor.cookies
    listing = elsewhere.request("GET", "/admin/images/?q=two-servers-image")
    assert listing.status_code == 200
    thumbnails = [
        src
        for src in _attributes(listing.text, "src")
        if src.startswith("http://127.0.0.1") and "two-servers" in src
    ]
    assert thumbnails, "no thumbnail from the bucket on the other server"
    thumbnail = requests.get(thumbnails[0], timeout=30)
    assert thumbnail.status_code == 200
    assert thumbnail.headers["Content-Type"].startswith("image/")


def _page_id(editor, title):
    found = editor.request("GET", f"/admin/pages/search/?q={title}")
    assert found.status_code == 200
    for href in _attributes(found.text, "href"):
        parts = href.strip("/").split("/")
        if parts[:2] == ["admin", "pages"] and parts[-1] == "edit":
            return int(parts[2])
    raise AssertionError("the draft is not found in the admin")


def _attributes(html, name):
    from bs4 import BeautifulSoup

    return [
        tag[name]
        for tag in BeautifulSoup(html, "html.parser").find_all(attrs={name: True})
    ]
