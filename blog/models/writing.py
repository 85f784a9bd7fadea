"""What the writing dashboard knows of each page's latest body.

Kept up to date when a revision or page is saved (`blog.writing`), so the
dashboard reads a few small tables instead of every body of the site.
"""

from django.db import models
from django.db.models import Exists, F, OuterRef, Q
from wagtail.models import Page


class BodyCheck(models.Model):
    """The last body checked of a page: the one its editor opens (latest revision)."""

    page = models.OneToOneField(
        Page, on_delete=models.CASCADE, primary_key=True, related_name="body_check"
    )
    digest = models.CharField(max_length=64)
    checked_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "正文检查"
        verbose_name_plural = "正文检查"

    def __str__(self):
        return f"正文检查 {self.page_id}"


class FindingQuerySet(models.QuerySet):
    def on(self, pages):
        """Return the findings in the bodies of ``pages`` (a page queryset)."""
        return self.filter(body_check_id__in=pages.values("pk"))

    def latest_first(self):
        return _latest_first(self)


class BodyLinkQuerySet(FindingQuerySet):
    def broken(self):
        """Return links whose page is gone, not live, or no longer at the link's URL.

        A rich text page link names its page by id; a Markdown link (or a
        rich text link to an address on this site) by its URL, so it also
        breaks when the page it named when saved has moved. Each link
        is annotated with ``target_exists`` and ``target_live`` to say why.
        """
        pages = Page.objects.filter(pk=OuterRef("target_page_id"))
        live = pages.filter(live=True)
        in_place = Q(target_url_path="") | Q(target_in_place=True)
        return self.annotate(
            target_exists=Exists(pages),
            target_live=Exists(live),
            target_in_place=Exists(live.filter(url_path=OuterRef("target_url_path"))),
        ).exclude(Q(target_live=True) & in_place)


class BadFormulaQuerySet(FindingQuerySet):
    pass


def _latest_first(findings):
    """Return ``findings`` with their pages, the most recently edited pages first."""
    edited = F("body_check__page__latest_revision_created_at").desc(nulls_last=True)
    return findings.select_related("body_check__page").order_by(
        edited, "body_check_id", "pk"
    )


class BodyLink(models.Model):
    """A link from a block of a body to a page of this site."""

    body_check = models.ForeignKey(
        BodyCheck, on_delete=models.CASCADE, related_name="links"
    )
    block_id = models.CharField(max_length=64, blank=True)
    block_type = models.CharField(max_length=64, blank=True)
    text = models.CharField(max_length=255, blank=True)
    # Not a foreign key: the link outlives the page it names, which is the point.
    target_page_id = models.PositiveIntegerField(null=True, blank=True)
    # A link by URL, as a page's url_path ("/home/cuda/x/"); "" for a page link.
    target_url_path = models.TextField(blank=True)

    objects = BodyLinkQuerySet.as_manager()

    class Meta:
        verbose_name = "内部链接"
        verbose_name_plural = "内部链接"

    def __str__(self):
        return self.text


class BadFormula(models.Model):
    """A formula of a body that KaTeX rejects (kept by an import, shown as an error)."""

    body_check = models.ForeignKey(
        BodyCheck, on_delete=models.CASCADE, related_name="bad_formulas"
    )
    block_id = models.CharField(max_length=64, blank=True)
    block_type = models.CharField(max_length=64, blank=True)
    tex = models.TextField()
    message = models.TextField()

    objects = BadFormulaQuerySet.as_manager()

    class Meta:
        verbose_name = "有错误的公式"
        verbose_name_plural = "有错误的公式"

    def __str__(self):
        return self.tex
