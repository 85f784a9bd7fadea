"""The site's URLs, plus the uploaded images, for the demo server's settings.

In production the proxy serves `media/`, and `config/urls.py` serves it only
with DEBUG; the browser must still load the image block's renditions.
"""

from django.conf import settings
from django.urls import re_path
from django.views.static import serve

from config.urls import urlpatterns as site_urlpatterns

urlpatterns = [
    re_path(
        r"^{}(?P<path>.*)$".format(settings.MEDIA_URL.lstrip("/")),
        serve,
        {"document_root": settings.MEDIA_ROOT},
    ),
    *site_urlpatterns,
]
