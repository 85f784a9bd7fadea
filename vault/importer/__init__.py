"""Import a vault of Markdown files into the page tree; see docs/markdown-format.md."""

from .importer import Importer
from .report import Issue, Report

__all__ = ["Importer", "Issue", "Report"]
