"""Building the pages an export starts from, and reading what it wrote."""

import datetime
import io
from pathlib import Path

from django.core.files.images import ImageFile
from PIL import Image as PILImage
from wagtail.embeds.embeds import get_embed_hash
from wagtail.embeds.models import Embed
from wagtail.images import get_image_model

from blog.models import PostPage, SeriesPage

EMBED_URL = "https://www.youtube.com/watch?v=bDcPmZQwV3g"


def add_embed(url: str) -> Embed:
    """Store an oEmbed result, so validation reads it instead of the network."""
    return Embed.objects.create(
        url=url,
        hash=get_embed_hash(url),
        type="video",
        html='<iframe src="https://www.youtube.com/embed/bDcPmZQwV3g"></iframe>',
        title="Video",
        width=560,
        height=315,
    )


def make_image(title: str, color: str, name: str):
    """Return a new image: a small PNG of one colour."""
    buffer = io.BytesIO()
    PILImage.new("RGB", (8, 6), color).save(buffer, format="PNG")
    return get_image_model().objects.create(
        title=title, file=ImageFile(io.BytesIO(buffer.getvalue()), name=name)
    )


def add_post(parent, raw_body, *, live=True, **fields):
    body_block = PostPage._meta.get_field("body").stream_block
    body = body_block.to_python(raw_body)
    body_block.clean(body)
    fields.setdefault("date", datetime.date(2026, 9, 1))
    fields.setdefault("updated", fields["date"])
    tags = fields.pop("tags", ())
    post = PostPage(body=body, live=live, **fields)
    post.tags.add(*tags)
    parent.add_child(instance=post)
    revision = post.save_revision()
    if live:
        revision.publish()
    return post


def add_series(parent, **fields):
    series = SeriesPage(**fields)
    parent.add_child(instance=series)
    series.save_revision().publish()
    return series


def read_tree(root: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def front(text: str) -> str:
    return text.split("\n---\n", 1)[0] + "\n---\n"


class Buffer:
    """A stdout for call_command that keeps what was written."""

    def __init__(self):
        self.text = ""

    def write(self, text):
        self.text += text

    def flush(self):
        pass
