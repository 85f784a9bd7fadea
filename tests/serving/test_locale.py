"""One language for the whole site (serving/locale.py), the admin's login page included."""


def test_the_admin_is_chinese_whatever_the_browser_asks(client, db):
    for accept in ("en", "en-US,en;q=0.9", "zh-CN"):
        page = client.get("/admin/login/", HTTP_ACCEPT_LANGUAGE=accept)
        assert "登录" in page.content.decode()
        assert "Sign in" not in page.content.decode()
        assert "accept-language" not in page.get("Vary", "").lower()
