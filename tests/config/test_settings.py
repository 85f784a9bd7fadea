"""Configuration: environment-driven settings and the Chinese locale."""

import datetime
import os
import subprocess
import sys
from pathlib import Path

from django.conf import settings
from django.template import Context, Template
from django.utils import translation

ROOT = Path(__file__).resolve().parents[2]


def run_settings(module, **env):
    """Import a settings module in a fresh interpreter with the given environment."""
    return run_python(
        f"import {module} as s; print(s.DATABASES['default']['ENGINE'])", **env
    )


def run_python(script, **env):
    """Run ``script`` in a fresh interpreter, without this shell's site settings."""
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in {"SECRET_KEY", "ALLOWED_HOSTS", "DATABASE_URL"}
        and not k.startswith("AWS_")
    }
    return subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        check=False,
    )


def test_production_refuses_to_start_without_secret_key():
    result = run_settings(
        "config.settings.production",
        DATABASE_URL="postgres://postgres@127.0.0.1/x",
        ALLOWED_HOSTS="example.com",
    )
    assert result.returncode != 0
    assert "Set the SECRET_KEY environment variable." in result.stderr


def test_production_names_each_missing_variable():
    result = run_settings(
        "config.settings.production", SECRET_KEY="k" * 50, ALLOWED_HOSTS="a"
    )
    assert "Set the DATABASE_URL environment variable." in result.stderr
    result = run_settings(
        "config.settings.production", SECRET_KEY="k" * 50, DATABASE_URL="sqlite:///x"
    )
    assert "Set the ALLOWED_HOSTS environment variable." in result.stderr


def test_database_url_chooses_the_database():
    result = run_settings(
        "config.settings.dev", DATABASE_URL="postgres://postgres@127.0.0.1:5432/x"
    )
    # Django's PostgreSQL backend, waiting out a restart (config/postgresql/).
    assert result.stdout.strip() == "config.postgresql"
    result = run_settings("config.settings.dev")
    assert result.stdout.strip() == "django.db.backends.sqlite3"


def test_language_is_simplified_chinese_and_dates_read_naturally():
    assert settings.LANGUAGE_CODE == "zh-hans"
    with translation.override(settings.LANGUAGE_CODE):
        rendered = Template("{{ d|date }}").render(
            Context({"d": datetime.date(2026, 9, 18)})
        )
    assert rendered == "2026年9月18日"


RENDER_IN_A_NEW_PROCESS = """
import django
django.setup()
from rendering.cache import render_count
from rendering.math import render_math
html = render_math(r"\\int_0^1 x^2 \\, dx", display=True)
print(render_count("katex"), 'class="katex-display"' in html)
"""


def test_production_without_redis_renders_math_once_for_every_process(tmp_path):
    """A second worker, or the same one after a restart, finds the first's renders."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "SECRET_KEY": "k" * 50,
        "ALLOWED_HOSTS": "127.0.0.1",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "PAGE_CACHE_DIR": str(tmp_path / "pages"),
        "RENDER_CACHE_DIR": str(tmp_path / "renders"),
    }
    env.pop("REDIS_URL", None)

    def render() -> str:
        done = subprocess.run(
            [sys.executable, "-c", RENDER_IN_A_NEW_PROCESS],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout.strip()

    assert render() == "1 True"  # the first process runs KaTeX
    assert render() == "0 True"  # the next one reads what it stored


def production_env(tmp_path) -> dict[str, str]:
    """Return an environment for the production settings, none of this one's own."""
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SECURE_", "DJANGO_SETTINGS", "FORWARDED_ALLOW_IPS"))
    }
    return {
        **clean,
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "SECRET_KEY": "a-production-key-" + "x" * 50,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "ALLOWED_HOSTS": "blog.example.com",
        "PAGE_CACHE_DIR": str(tmp_path / "pages"),
        "RENDER_CACHE_DIR": str(tmp_path / "renders"),
    }


def test_production_passes_the_deployment_checks_with_no_warning(tmp_path):
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=production_env(tmp_path),
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_behind_a_tls_proxy_http_is_redirected_and_https_is_strict(
    client, db, settings
):
    """The scheme is the one gunicorn took from the trusted proxy (wsgi.url_scheme):
    Django believes no X-Forwarded-Proto itself, so a client cannot claim HTTPS."""
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_HSTS_SECONDS = 31536000
    plain = client.get("/archive/", HTTP_X_FORWARDED_PROTO="https")
    assert plain.status_code == 301
    assert plain["Location"] == "https://testserver/archive/"
    secure = client.get("/healthz", secure=True)
    assert secure.status_code == 200
    assert secure["Strict-Transport-Security"].startswith("max-age=31536000")


def test_production_believes_no_forwarded_header_of_its_own(tmp_path):
    script = (
        "from django.conf import settings;"
        "print(getattr(settings, 'SECURE_PROXY_SSL_HEADER', None),"
        " settings.TRUSTED_PROXIES)"
    )
    result = subprocess.run(  # noqa: S603
        [sys.executable, "-c", f"import django; django.setup(); {script}"],
        cwd=ROOT,
        env=production_env(tmp_path),
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.split() == ["None", "['127.0.0.1']"]


def test_a_bucket_name_puts_media_on_object_storage():
    script = (
        "import config.settings.production as s; "
        "o = s.STORAGES['default']; "
        "print(o['BACKEND'], o['OPTIONS']['bucket_name'], o['OPTIONS']['endpoint_url'])"
    )
    result = run_python(
        script,
        SECRET_KEY="k" * 50,
        DATABASE_URL="sqlite:///x",
        ALLOWED_HOSTS="blog.example.com",
        AWS_STORAGE_BUCKET_NAME="blog-media",
        AWS_S3_ENDPOINT_URL="http://127.0.0.1:9000",
    )
    assert result.stdout.split() == [
        "storages.backends.s3.S3Storage",
        "blog-media",
        "http://127.0.0.1:9000",
    ], result.stderr
