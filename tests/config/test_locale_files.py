"""The compiled catalogs in locale/ say what their .po sources say.

A newcomer's ``make run`` has no gettext tools, so the .mo files are committed;
this fails when a .po was edited and not compiled again (msgfmt -c).
"""

import ast
import gettext
import re
from pathlib import Path

import pytest
from django.conf import settings

ENTRY = re.compile(
    r'^msgid ((?:".*"\n)+)(?:msgid_plural ((?:".*"\n)+))?'
    r'(?:msgstr ((?:".*"\n?)+)|msgstr\[0\] ((?:".*"\n?)+))',
    re.M,
)


def _text(quoted):
    return "".join(ast.literal_eval(line) for line in quoted.split("\n") if line)


def po_entries(path):
    """Yield (msgid, msgid_plural or None, msgstr) from a .po file."""
    for match in ENTRY.finditer(path.read_text(encoding="utf-8")):
        msgid, plural, single, first = match.groups()
        if _text(msgid):
            yield _text(msgid), plural and _text(plural), _text(single or first)


CATALOGS = sorted(Path(settings.LOCALE_PATHS[0]).glob("*/LC_MESSAGES/*.po"))


@pytest.mark.parametrize(
    "po", CATALOGS, ids=lambda p: f"{p.parent.parent.name}/{p.name}"
)
def test_the_compiled_catalog_matches_its_source(po):
    with po.with_suffix(".mo").open("rb") as mo:
        compiled = gettext.GNUTranslations(mo)
    entries = list(po_entries(po))
    assert entries
    for msgid, plural, msgstr in entries:
        if plural:
            assert compiled.ngettext(msgid, plural, 1) == msgstr, msgid
        else:
            assert compiled.gettext(msgid) == msgstr, msgid
    assert len(compiled._catalog) - 1 == len(entries)  # noqa: SLF001 - header
