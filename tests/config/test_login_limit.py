"""Admin logins are refused for a while after repeated failures (django-axes)."""

import pytest
from django.urls import reverse

PASSWORD = "a-long-passphrase-for-tests"  # noqa: S105


@pytest.fixture
def editor(django_user_model):
    return django_user_model.objects.create_superuser(
        "editor", "editor@example.com", PASSWORD
    )


def log_in(client, username, password):
    return client.post(
        reverse("wagtailadmin_login"), {"username": username, "password": password}
    )


def test_five_failures_lock_the_login_even_with_the_right_password(client, editor):
    for _ in range(5):
        failed = log_in(client, "editor", "wrong")
        assert failed.status_code in (200, 429)
    locked = log_in(client, "editor", PASSWORD)
    assert locked.status_code == 429
    assert "登录尝试过多" in locked.content.decode()
    assert client.get(reverse("wagtailadmin_home")).status_code == 302  # not in


def test_a_few_failures_then_the_right_password_logs_in(client, editor):
    for _ in range(3):
        assert log_in(client, "editor", "wrong").status_code == 200
    assert log_in(client, "editor", PASSWORD).status_code == 302
    assert client.get(reverse("wagtailadmin_home")).status_code == 200


def test_one_locked_username_does_not_lock_another(client, editor, django_user_model):
    django_user_model.objects.create_superuser("other", "o@example.com", PASSWORD)
    for _ in range(5):
        log_in(client, "editor", "wrong")
    assert log_in(client, "other", PASSWORD).status_code == 302


def test_behind_the_proxy_a_guesser_locks_out_only_their_own_address(
    client, editor, settings
):
    settings.TRUSTED_PROXIES = ["127.0.0.1"]

    def through_proxy(reader, password, forged=""):
        return client.post(
            reverse("wagtailadmin_login"),
            {"username": "editor", "password": password},
            REMOTE_ADDR="127.0.0.1",
            HTTP_X_FORWARDED_FOR=f"{forged}, {reader}" if forged else reader,
        )

    # Rewriting the header each time changes nothing: the proxy appended the
    # address it saw last.
    for n in range(5):
        through_proxy("203.0.113.66", "wrong", forged=f"192.0.2.{n}")
    assert through_proxy("203.0.113.66", PASSWORD, forged="192.0.2.9").status_code == (
        429
    )
    # The editor, behind the same proxy, still logs in.
    assert through_proxy("198.51.100.2", PASSWORD).status_code == 302
