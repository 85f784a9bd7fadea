"""Content of the demo blog that `manage.py load_demo` builds.

It is the real blog this product is made for (author 刘芷溢): the sections,
series, titles, dates, tags and summaries of its public pages, with short
bodies written for the demo that use every kind of body block.
"""

from vault.demo import cuda, llm, notes
from vault.demo.base import DemoImage, Post, Series
from vault.demo.figures import BANK_SWIZZLE, ROOFLINE

AUTHOR = "刘芷溢"

HOME_INTRO = (
    "<p>刘芷溢的技术博客：GPU kernel 与 CUDA 性能分析、LLM 推理与量化，"
    "以及 CSAPP 等计算机系统方向的笔记。</p>"
)

# Top-level sections, in explorer (and navigation) order.
SECTIONS: tuple[Series, ...] = (cuda.SECTION, llm.SECTION, notes.SECTION)

TAG_INDEX = {"slug": "tags", "title": "标签", "intro": "<p>按标签浏览全部文章。</p>"}
ARCHIVE = {"slug": "archive", "title": "归档"}

IMAGES: tuple[DemoImage, ...] = (ROOFLINE, BANK_SWIZZLE)


__all__ = [
    "ARCHIVE",
    "AUTHOR",
    "HOME_INTRO",
    "IMAGES",
    "SECTIONS",
    "TAG_INDEX",
    "DemoImage",
    "Post",
    "Series",
]
