"""Wagtail's autosave answers a refused save with 200, so the console stays clean.

While an editor types, Wagtail's autosave posts the form every half second.
A form that does not validate yet (a formula half typed, a slug taken) is
refused with a JSON body, ``{"success": false, "error_code": ...}``, and a
400 status; the browser logs every 4xx fetch as a console error, though the
editor is told already (the autosave indicator says it paused) and nothing
failed. Wagtail's script
reads only the body (AutosaveController: ``response.success``), never the
status, so the refusals it handles itself are sent as 200.
"""

import json

from serving.security import ADMIN_PREFIXES

# The refusals Wagtail's autosave shows to the editor (its ServerErrorCode).
HANDLED_REFUSALS = frozenset({"validation_error", "locked", "invalid_revision"})


def is_autosave_refusal(request, response) -> bool:
    if not (
        response.status_code == 400
        and request.method == "POST"
        and request.path_info.startswith(ADMIN_PREFIXES)
        and response.get("Content-Type") == "application/json"
        and not response.streaming
    ):
        return False
    try:
        data = json.loads(response.content)
    except ValueError:
        return False
    return (
        isinstance(data, dict)
        and data.get("success") is False
        and data.get("error_code") in HANDLED_REFUSALS
    )


class AutosaveRefusalMiddleware:
    """Send the admin's handled autosave refusals with status 200."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if is_autosave_refusal(request, response):
            response.status_code = 200
        return response
