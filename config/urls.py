from django.contrib import admin
from django.urls import include, path, re_path
from django.views.generic import TemplateView
from wagtail import urls as wagtail_urls
from wagtail.admin import urls as wagtailadmin_urls
from wagtail.contrib.sitemaps.views import sitemap
from wagtail.documents import urls as wagtaildocs_urls

from blog.page_passwords import authenticate_with_password
from blog.seo import PageSitemap, sitemap_index
from blog.social import social_image
from blog.views import (
    explorer_fragment,
    explorer_posts_fragment,
    favicon,
    search,
    site_feed,
)

SITEMAPS = {"pages": PageSitemap}

urlpatterns = [
    path("django-admin/", admin.site.urls),
    path("admin/", include(wagtailadmin_urls)),
    path("documents/", include(wagtaildocs_urls)),
    # An index of sitemap files (blog.seo.PageSitemap), a few hundred pages each.
    path(
        "sitemap.xml",
        sitemap_index,
        {
            "sitemaps": SITEMAPS,
            "sitemap_url_name": "sitemap-section",
            # Django's own, without {% spaceless %}: a regex over every line.
            "template_name": "blog/sitemap_index.xml",
        },
        name="sitemap",
    ),
    path(
        "sitemap-<slug:section>.xml",
        sitemap,
        {"sitemaps": SITEMAPS, "template_name": "blog/sitemap.xml"},
        name="sitemap-section",
    ),
    path("feed/", site_feed, name="feed"),
    path("social/<int:page_id>.png", social_image, name="social_image"),
    # For clients that ask for /favicon.ico without reading the page's <link>.
    path("favicon.ico", favicon),
    path(
        "robots.txt",
        TemplateView.as_view(template_name="robots.txt", content_type="text/plain"),
        name="robots",
    ),
]

urlpatterns += [
    path("search/", search, name="search"),
    # The explorer beside a folder's pages, which they load (blog/explorer.py).
    re_path(
        r"^_explorer/(?P<path>(?:[^/]+/)*)$",
        explorer_fragment,
        name="explorer_fragment",
    ),
    # A folder's own posts, loaded when a reader opens it in the explorer.
    re_path(
        r"^_explorer-posts/(?P<path>(?:[^/]+/)+)$",
        explorer_posts_fragment,
        name="explorer_posts_fragment",
    ),
    # Readers' comments on posts (comments/views.py).
    path("comments/", include("comments.urls")),
    # Wagtail's page password form, refused after repeated wrong passwords
    # (blog/page_passwords.py); the URL and name are Wagtail's own.
    path(
        "_util/authenticate_with_password/<int:page_view_restriction_id>/<int:page_id>/",
        authenticate_with_password,
        name="wagtailcore_authenticate_with_password",
    ),
    path("", include(wagtail_urls)),
]
