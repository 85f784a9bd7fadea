"""The WSGI application gunicorn serves the puput blog with."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scripts.bench.puput_site.settings")

application = get_wsgi_application()
