"""Page passwords refused for a while after repeated wrong guesses.

Wagtail's view at ``/_util/authenticate_with_password/<restriction>/<page>/``
checks the password a reader gives for a page whose privacy is "password".
This view wraps it with the same limit as admin logins (django-axes, settings
``AXES_*``): each wrong password counts as a failed login of the username
``page-password:<page id>`` from the reader's address, so after
``AXES_FAILURE_LIMIT`` failures that address may not try that page again for
``AXES_COOLOFF_TIME`` (the right password included): it gets the form back
with a message and status 429. Counts are axes' records in the database,
which every worker shares. The right password clears the address's count
(``AXES_RESET_ON_SUCCESS``).
"""

from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import get_client_ip_address, get_cool_off
from django.conf import settings
from django.contrib.auth.signals import user_login_failed
from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404
from django.urls import reverse
from wagtail.forms import PasswordViewRestrictionForm
from wagtail.models import Page, PageViewRestriction
from wagtail.views import authenticate_with_password as wagtail_authenticate

LOCKED_MESSAGE = "这个页面的密码输错次数过多，请在 {minutes} 分钟后再试。"


def credentials_for(page_id: int) -> dict:
    """Return the credentials axes counts a page's wrong passwords under."""
    return {"username": f"page-password:{page_id}"}


class RefusedPasswordForm(PasswordViewRestrictionForm):
    """Wagtail's password form, refusing what it is given without reading it:
    a locked-out address learns nothing, not even that a guess was right."""

    def __init__(self, *args, message: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.message = message
        self.fields["password"].required = False

    def clean_password(self):
        return ""

    def clean(self):
        raise ValidationError(self.message)


def _locked_response(request, restriction_id: int, page_id: int):
    restriction = get_object_or_404(PageViewRestriction, id=restriction_id)
    page = get_object_or_404(Page, id=page_id).specific
    cool_off = get_cool_off(request)
    minutes = max(1, round(cool_off.total_seconds() / 60)) if cool_off else 15
    form = RefusedPasswordForm(
        request.POST,
        instance=restriction,
        message=LOCKED_MESSAGE.format(minutes=minutes),
    )
    form.full_clean()
    action_url = reverse(
        "wagtailcore_authenticate_with_password", args=[restriction_id, page_id]
    )
    response = page.serve_password_required_response(request, form, action_url)
    response.status_code = 429
    return response


def authenticate_with_password(request, page_view_restriction_id, page_id):
    """Wagtail's page password check, refused while the address is locked out."""
    if request.method != "POST":
        return wagtail_authenticate(request, page_view_restriction_id, page_id)
    credentials = credentials_for(page_id)
    if AxesProxyHandler.is_locked(request, credentials):
        return _locked_response(request, page_view_restriction_id, page_id)
    response = wagtail_authenticate(request, page_view_restriction_id, page_id)
    if response.status_code in (301, 302):  # the password was right
        if settings.AXES_RESET_ON_SUCCESS:
            AxesProxyHandler.reset_attempts(
                ip_address=get_client_ip_address(request),
                username=credentials["username"],
            )
        return response
    if response.status_code == 200:  # the form again: a wrong password
        user_login_failed.send(
            sender=__name__, credentials=credentials, request=request
        )
        # Axes marks the request locked out once the limit is reached, and its
        # middleware would answer with the admin login's lockout page; this
        # attempt has its answer (the form and its error) already.
        request.axes_locked_out = False
    return response
