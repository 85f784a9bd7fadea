"""gunicorn with the production settings, reached as through the proxy and not.

Two servers on one SQLite database: one trusts 127.0.0.1 as its proxy (the
default, FORWARDED_ALLOW_IPS unset), the other trusts only an address no
request here comes from, so its clients stand for readers reaching gunicorn
directly. What each believes of X-Forwarded-Proto, X-Forwarded-For and a
SCRIPT_NAME header is what a reader behind the proxy, or an attacker beside
it, would meet.
"""

import os
import secrets
import subprocess

import pytest
import requests
from bs4 import BeautifulSoup

from scripts.support.servers import (
    DROPPED_ENV,
    GUNICORN,
    ROOT,
    collect_static,
    free_port,
    manage,
    wait_until_serving,
)

READER = "198.51.100.7"
HTTPS = {"X-Forwarded-Proto": "https"}


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    folder = tmp_path_factory.mktemp("proxy")
    env = {k: v for k, v in os.environ.items() if k not in DROPPED_ENV}
    env.pop("FORWARDED_ALLOW_IPS", None)
    env.pop("BIND", None)
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.production",
        PYTHONPATH=str(ROOT),
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="127.0.0.1",
        DATABASE_URL=f"sqlite:///{folder / 'db.sqlite3'}",
        PAGE_CACHE_DIR=str(folder / "pages"),
        RENDER_CACHE_DIR=str(folder / "renders"),
        WARM_ON_START="0",
        WEB_CONCURRENCY="1",
        LOG_LEVEL="WARNING",
        # A plain request is served, not redirected: whether it counts as
        # HTTPS shows in the HSTS header, which Django sends on HTTPS only.
        SECURE_SSL_REDIRECT="false",
    )
    manage(env, "migrate", "--noinput", "-v", "0")
    collect_static(env)
    manage(
        env,
        "shell",
        "-c",
        "from blog.models import HomePage, PostPage;"
        "home = HomePage.objects.get();"
        "post = PostPage(title='代理后的文章', slug='proxied', allow_comments=True,"
        " summary='代理');"
        "home.add_child(instance=post); post.save_revision().publish()",
    )
    return env


def serve(env, port, **extra):
    process = subprocess.Popen(  # noqa: S603
        [str(GUNICORN), "-c", "config/gunicorn.py", "config.wsgi"],
        cwd=ROOT,
        env={**env, "PORT": str(port), **extra},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    wait_until_serving(process, url + "/healthz", 60, lambda: "")
    return process, url


@pytest.fixture(scope="module")
def servers(env):
    """The server behind the proxy on 127.0.0.1, and one no request is trusted by."""
    processes = []
    try:
        proxied, proxied_url = serve(env, free_port())
        processes.append(proxied)
        direct, direct_url = serve(env, free_port(), FORWARDED_ALLOW_IPS="192.0.2.1")
        processes.append(direct)
        yield {"proxied": proxied_url, "direct": direct_url}
    finally:
        for process in processes:
            process.terminate()
            process.wait(timeout=30)


def test_gunicorn_listens_on_loopback_unless_told(env):
    script = "import runpy; print(runpy.run_path('config/gunicorn.py')['bind'])"
    for extra, bind in (({}, "127.0.0.1:8000"), ({"PORT": "9000"}, "127.0.0.1:9000")):
        result = subprocess.run(  # noqa: S603
            [str(GUNICORN.with_name("python")), "-c", script],
            cwd=ROOT,
            env={**env, **extra},
            capture_output=True,
            text=True,
            check=True,
        )
        assert result.stdout.strip() == bind


def test_only_the_proxy_may_say_the_request_came_by_https(servers):
    through = requests.get(servers["proxied"] + "/", headers=HTTPS, timeout=30)
    assert through.status_code == 200
    assert through.headers["Strict-Transport-Security"].startswith("max-age=")
    beside = requests.get(servers["direct"] + "/", headers=HTTPS, timeout=30)
    assert beside.status_code == 200
    assert "Strict-Transport-Security" not in beside.headers


def test_a_script_name_header_is_not_taken_even_from_the_proxy(servers):
    response = requests.get(
        servers["proxied"] + "/proxied/",
        headers={**HTTPS, "SCRIPT_NAME": "/planted", "SCRIPT-NAME": "/planted"},
        timeout=30,
    )
    assert response.status_code == 200
    assert "代理后的文章" in response.text
    assert "/planted" not in response.text


def comment(url, reader):
    page = requests.get(url + "/proxied/", headers=HTTPS, timeout=30)
    form = BeautifulSoup(page.text, "html.parser").select_one(".comment-form")
    data = {
        field["name"]: field.get("value", "")
        for field in form.select("input[name]")
        if field.get("type") != "submit"
    }
    data.update(name="读者", comment=f"来自 {reader}", honeypot="")
    headers = {**HTTPS, "X-Forwarded-For": reader}
    response = requests.post(
        url + form["action"], data=data, headers=headers, timeout=30
    )
    assert response.status_code == 200, response.text


def test_the_reader_is_who_the_proxy_says_and_no_one_else_can_say_it(env, servers):
    comment(servers["proxied"], READER)
    comment(servers["direct"], "203.0.113.99")
    stored = manage(
        env,
        "shell",
        "-v",
        "0",
        "-c",
        "from django_comments_xtd.models import XtdComment;"
        "print(*XtdComment.objects.order_by('pk').values_list('ip_address', flat=True))",
    )
    assert stored.split() == [READER, "127.0.0.1"]
