"""A minimal puput 2.2 blog, served beside ours by `make bench-puput`.

It runs in its own virtualenv (.bench/puput/venv, scripts/bench/puput-requirements.txt),
set up as puput's documentation says for a standalone blog: PUPUT_APPS, Wagtail's
redirect middleware, the request context processor, puput's URLs at the bottom,
`migrate` and `puput_initial_data`.
"""
