from django.apps import AppConfig


class SearchConfig(AppConfig):
    name = "search"
    # Wagtail's own search app is labelled "wagtailsearch": no clash.
    label = "search"
