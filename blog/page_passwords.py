"""Page passwords refused for a while after repeated wrong guesses.

Wagtail's view at ``/_util/authenticate_with_password/<restriction>/<page>/``
checks the password a reader gives for a page whose privacy is "password",
and marks the restriction passed: every page under it opens. This view wraps
it with the same limit as admin logins (django-axes, settings ``AXES_*``):
each wrong password counts as a failed login of the username
``page-password:<restriction id>`` from the reader's address
(``serving.addresses``), so after ``AXES_FAILURE_LIMIT`` failures that address
may not try that restriction again for ``AXES_COOLOFF_TIME`` (the right
password included), whichever of its pages the URL names: it gets the form
back with a message and status 429. A URL whose page is not live or is not
under that password restriction is a 404, and counts nothing. Counts are axes'
records in the database, which every worker shares. The right password
clears the address's count (``AXES_RESET_ON_SUCCESS``).
"""

from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import get_cool_off
from django.conf import settings
from django.contrib.auth.signals import user_login_failed
from django.core.exceptions import ValidationError
from django.http import Http404
from django.urls import reverse
from wagtail.forms import PasswordViewRestrictionForm
from wagtail.models import Page, PageViewRestriction
from wagtail.views import authenticate_with_password as wagtail_authenticate

from serving.addresses import reader_address

LOCKED_MESSAGE = "这个页面的密码输错次数过多，请在 {minutes} 分钟后再试。"


def credentials_for(restriction: PageViewRestriction) -> dict:
    """Return the credentials axes counts a restriction's wrong passwords under."""
    return {"username": f"page-password:{restriction.pk}"}


def protected_page(restriction_id: int, page_id: int):
    """Return the restriction and the live page it guards, or raise Http404.

    The restriction must be a password on the page or on one of its
    ancestors: a guess is counted against the password it is checked with.
    """
    page = Page.objects.live().filter(pk=page_id).first()
    if page is None:
        raise Http404
    page = page.specific
    restriction = (
        page.get_view_restrictions()
        .filter(pk=restriction_id, restriction_type=PageViewRestriction.PASSWORD)
        .first()
    )
    if restriction is None:
        raise Http404
    return restriction, page


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


def _locked_response(request, restriction, page):
    cool_off = get_cool_off(request)
    minutes = max(1, round(cool_off.total_seconds() / 60)) if cool_off else 15
    form = RefusedPasswordForm(
        request.POST,
        instance=restriction,
        message=LOCKED_MESSAGE.format(minutes=minutes),
    )
    form.full_clean()
    action_url = reverse(
        "wagtailcore_authenticate_with_password", args=[restriction.pk, page.pk]
    )
    response = page.serve_password_required_response(request, form, action_url)
    response.status_code = 429
    return response


def authenticate_with_password(request, page_view_restriction_id, page_id):
    """Wagtail's page password check, refused while the address is locked out."""
    restriction, page = protected_page(page_view_restriction_id, page_id)
    if request.method != "POST":
        return wagtail_authenticate(request, restriction.pk, page.pk)
    credentials = credentials_for(restriction)
    if AxesProxyHandler.is_locked(request, credentials):
        return _locked_response(request, restriction, page)
    response = wagtail_authenticate(request, restriction.pk, page.pk)
    if response.status_code in (301, 302):  # the password was right
        if settings.AXES_RESET_ON_SUCCESS:
            AxesProxyHandler.reset_attempts(
                ip_address=reader_address(request),
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
