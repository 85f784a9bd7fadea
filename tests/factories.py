"""Factories for pages and body blocks (wagtail-factories + factory_boy)."""

import datetime

import factory
import wagtail_factories
from wagtail.rich_text import RichText

from blog import blocks
from blog.models import ArchivePage, HomePage, PostPage, SeriesPage, TagIndexPage


class HeadingBlockFactory(wagtail_factories.StructBlockFactory):
    text = factory.Sequence(lambda n: f"第 {n} 节")
    level = "h2"

    class Meta:
        model = blocks.HeadingBlock


class ParagraphBlockFactory(wagtail_factories.blocks.BlockFactory):
    value = factory.LazyFunction(
        lambda: RichText("<p>设 $n = 2^k$，共享内存有 32 个 bank。</p>")
    )

    class Meta:
        model = blocks.ParagraphBlock

    @classmethod
    def _construct_block(cls, block_class, *args, **kwargs):
        return kwargs.get("value")


class CodeBlockFactory(wagtail_factories.StructBlockFactory):
    language = "cuda"
    filename = "kernel.cu"
    code = "__global__ void k(float* x) {\n    x[threadIdx.x] *= 2.0f;\n}"
    highlight_lines = ""
    line_numbers = True

    class Meta:
        model = blocks.CodeBlock


class MathBlockFactory(wagtail_factories.StructBlockFactory):
    tex = r"\sum_{i=1}^{n} i = \frac{n(n+1)}{2}"
    label = ""

    class Meta:
        model = blocks.MathBlock


class PostBodyFactory(wagtail_factories.StreamBlockFactory):
    heading = factory.SubFactory(HeadingBlockFactory)
    paragraph = factory.SubFactory(ParagraphBlockFactory)
    code = factory.SubFactory(CodeBlockFactory)
    math = factory.SubFactory(MathBlockFactory)

    class Meta:
        model = blocks.PostBodyBlock


class HomePageFactory(wagtail_factories.PageFactory):
    title = "首页"

    class Meta:
        model = HomePage


class SeriesPageFactory(wagtail_factories.PageFactory):
    title = factory.Sequence(lambda n: f"Series {n}")
    slug = factory.Sequence(lambda n: f"series-{n}")
    ordering = SeriesPage.Ordering.EXPLORER

    class Meta:
        model = SeriesPage


class PostPageFactory(wagtail_factories.PageFactory):
    title = factory.Sequence(lambda n: f"CUDA 笔记 {n}")
    slug = factory.Sequence(lambda n: f"post-{n}")
    summary = "一篇关于 GPU 的短文。"
    date = datetime.date(2026, 9, 1)
    updated = factory.LazyAttribute(lambda post: post.date)
    body = wagtail_factories.StreamFieldFactory(PostBodyFactory)

    class Meta:
        model = PostPage
        skip_postgeneration_save = True

    @factory.post_generation
    def tags(post, create, extracted, **kwargs):
        if extracted:
            post.tags.add(*extracted)
            if create:
                post.save()


class TagIndexPageFactory(wagtail_factories.PageFactory):
    title = "标签"
    slug = "tags"

    class Meta:
        model = TagIndexPage


class ArchivePageFactory(wagtail_factories.PageFactory):
    title = "归档"
    slug = "archive"

    class Meta:
        model = ArchivePage
