"""puput's URLs, which include Wagtail's, at the bottom as its setup asks."""

from django.urls import include, path

urlpatterns = [
    path("", include("puput.urls")),
]
