"""`manage.py export_markdown`: the page tree as folders of Markdown.

The conversions are checked on their own (rich text and every block to the
Markdown of docs/markdown-format.md), then the command on a site, and last the
round trip: export the demo blog plus the cases it lacks, empty the site, import
the folder with `import_markdown`, and compare the pages.
"""

import pytest

# Their asserts report what they compared, as a test module's do.
pytest.register_assert_rewrite("tests.vault.exporter.reading")
