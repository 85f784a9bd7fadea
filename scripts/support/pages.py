"""The pages of the demo blog (`load_demo`), one per kind a reader can land on.

The browser, HTML and accessibility checks visit them (`tests/e2e/pages.py`
lists which), and `make audit` runs Lighthouse on two of them.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class DemoPage:
    name: str
    path: str
    status: int = 200


HOME = DemoPage("home", "/")
SECTION = DemoPage("section", "/cuda/")
SERIES = DemoPage("series", "/notes/csapp/")
# The longest post with math: KaTeX, tables, code, a quote and many headings.
MATH_POST = DemoPage("post-math", "/cuda/flashattention-v1-v4/")
# A post with an image, an HTML figure and highlighted code.
FIGURE_POST = DemoPage("post-figures", "/cuda/bank-conflict-swizzle/")
TAG_INDEX = DemoPage("tag-index", "/tags/")
TAG = DemoPage("tag", "/tags/cuda/")
ARCHIVE = DemoPage("archive", "/archive/")
SEARCH = DemoPage("search", "/search/?q=%E9%87%8F%E5%8C%96")  # ?q=量化
NOT_FOUND = DemoPage("not-found", "/no-such-page/", status=404)
