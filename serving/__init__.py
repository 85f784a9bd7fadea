"""Serving requests: the middleware around every view, and the reader's address.

Security headers and the Content-Security-Policy (``security``), ``/healthz``
(``health``), Brotli and gzip (``compression``), uploads from MEDIA_ROOT
(``media``), the render budget (``budget``), one language (``locale``),
autosave refusals (``autosave``), and the address behind the proxy
(``addresses``). The settings name these by dotted string; ``blog`` may import
them; they import no content model.
"""
