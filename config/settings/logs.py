"""One JSON object per log line: the formatter Django and gunicorn both use.

``time`` is ISO 8601 in UTC, whatever the time zone the site shows. Not a
settings module of its own: ``production`` and ``config/gunicorn.py`` read it.
"""

JSON_FORMATTER = {
    "()": "pythonjsonlogger.json.JsonFormatter",
    "fmt": "%(levelname)s %(name)s %(process)d %(message)s",
    "rename_fields": {"levelname": "level"},
    "timestamp": "time",
}
