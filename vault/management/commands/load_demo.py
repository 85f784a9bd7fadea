"""Build the demo blog: the sections, series and posts of the author's site.

The content lives in `vault.demo`. Pages are matched by parent and slug, images
by title: what already exists is left as it is, so running the command again
changes nothing.
"""

import io

from django.core.exceptions import ValidationError
from django.core.files.images import ImageFile
from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError, transaction
from wagtail.images import get_image_model
from wagtail.models import Site
from wagtail.utils.file import hash_filelike

from blog.models import ArchivePage, HomePage, PostPage, SeriesPage, TagIndexPage
from vault import demo


class Command(BaseCommand):
    help = (
        "Build the demo blog (sections, series, posts, tag index, archive) under "
        "the default site's home page. Existing pages are left unchanged."
    )

    def handle(self, *args, **options):
        self.verbosity = options["verbosity"]
        self.created = 0
        self.present = 0
        home = self.get_home()
        body_block = PostPage._meta.get_field("body").stream_block

        with transaction.atomic():
            images_created = 0
            images = {}
            for spec in demo.IMAGES:
                images[spec], created = self.get_or_create_image(spec)
                images_created += created
            # Before any add_child, so the home page's revision is taken while
            # its tree fields are current.
            home_updated = self.update_home(home)
            for section in demo.SECTIONS:
                self.build_series(home, section, "/", images, body_block)
            self.ensure_page(
                home,
                "/",
                TagIndexPage(
                    title=demo.TAG_INDEX["title"],
                    slug=demo.TAG_INDEX["slug"],
                    intro=demo.TAG_INDEX["intro"],
                ),
            )
            self.ensure_page(
                home,
                "/",
                ArchivePage(title=demo.ARCHIVE["title"], slug=demo.ARCHIVE["slug"]),
            )

        self.stdout.write(
            self.style.SUCCESS(
                f"Demo content: {self.created} pages created, "
                f"{self.present} already present; {images_created} images created; "
                f"home page {'updated' if home_updated else 'unchanged'}."
            )
        )

    def get_home(self):
        """Return the default site's HomePage, which a data migration creates."""
        hint = (
            "Run `python manage.py migrate` first: it creates the site and home page."
        )
        try:
            site = Site.objects.select_related("root_page").get(is_default_site=True)
        except Site.DoesNotExist as error:
            raise CommandError(f"There is no default site. {hint}") from error
        except DatabaseError as error:
            raise CommandError(
                f"The database is not ready ({error}). {hint}"
            ) from error
        home = site.root_page.specific
        if not isinstance(home, HomePage):
            raise CommandError(
                f"The default site's root page is a {type(home).__name__}, "
                f"not a HomePage. {hint}"
            )
        return home

    def get_or_create_image(self, spec):
        """Return (image, created): the image titled `spec.title`, drawn if missing."""
        image_model = get_image_model()
        image = image_model.objects.filter(title=spec.title).order_by("pk").first()
        if image is not None:
            return image, False
        buffer = io.BytesIO()
        spec.draw().save(buffer, format="PNG", optimize=True)
        data = buffer.getvalue()
        image = image_model(
            title=spec.title,
            file=ImageFile(io.BytesIO(data), name=spec.filename),
            # What the admin's upload form records for a new image.
            file_size=len(data),
            file_hash=hash_filelike(io.BytesIO(data)),
        )
        image.save()
        return image, True

    def update_home(self, home):
        """Give a fresh home page the author and intro; never overwrite edits."""
        if home.author or home.intro:
            return False
        home.author = demo.AUTHOR
        home.intro = demo.HOME_INTRO
        home.save_revision().publish()
        return True

    def build_series(self, parent, spec, parent_path, images, body_block):
        path = f"{parent_path}{spec.slug}/"
        page = self.ensure_page(
            parent,
            parent_path,
            SeriesPage(
                title=spec.title,
                slug=spec.slug,
                intro=spec.intro,
                ordering=spec.ordering,
            ),
        )
        for child in spec.children:
            if isinstance(child, demo.Series):
                self.build_series(page, child, path, images, body_block)
            else:
                self.ensure_post(page, child, path, images, body_block)

    def ensure_post(self, parent, spec, parent_path, images, body_block):
        if self.existing_child(parent, PostPage, spec.slug, parent_path):
            self.report(f"{parent_path}{spec.slug}/", created=False)
            self.present += 1
            return
        raw = [_with_image_ids(block, images) for block in spec.body]
        unknown = {block["type"] for block in raw} - set(body_block.child_blocks)
        if unknown:
            raise CommandError(f"{spec.title}: unknown block types {sorted(unknown)}.")
        body = body_block.to_python(raw)
        try:
            # The validation the admin runs on save: KaTeX, line specs, choices.
            body_block.clean(body)
        except ValidationError as error:
            # StreamBlockValidationError says which block and field failed.
            detail = (
                error.as_json_data()
                if hasattr(error, "as_json_data")
                else error.messages
            )
            raise CommandError(f"{spec.title}: invalid body: {detail}") from error
        post = PostPage(
            title=spec.title,
            slug=spec.slug,
            summary=spec.summary,
            date=spec.date,
            updated=spec.updated,
            cover=images[spec.cover] if spec.cover else None,
            body=body,
        )
        post.tags.add(*spec.tags)
        self.ensure_page(parent, parent_path, post)

    def ensure_page(self, parent, parent_path, page):
        """Add and publish `page` under `parent` unless its slug is taken there.

        Return the page now in the tree.
        """
        model = type(page)
        existing = self.existing_child(parent, model, page.slug, parent_path)
        if existing is None and model.max_count:
            # A single-instance page (tags, archive) may live at another slug.
            existing = model.objects.first()
        if existing is not None:
            self.report(f"{parent_path}{page.slug}/", created=False)
            self.present += 1
            return existing
        parent.add_child(instance=page)
        page.save_revision().publish()
        self.report(f"{parent_path}{page.slug}/", created=True)
        self.created += 1
        return page

    def existing_child(self, parent, model, slug, parent_path):
        page = parent.get_children().filter(slug=slug).first()
        if page is None:
            return None
        page = page.specific
        if not isinstance(page, model):
            raise CommandError(
                f"{parent_path}{slug}/ already exists as a {type(page).__name__}, "
                f"not a {model.__name__}; move or rename it and run load_demo again."
            )
        return page

    def report(self, path, *, created):
        if self.verbosity >= 2:
            self.stdout.write(f"{'created' if created else 'unchanged':>9}  {path}")


def _with_image_ids(value, images):
    """Replace each DemoImage in a raw block value with its image's pk."""
    if isinstance(value, demo.DemoImage):
        return images[value].pk
    if isinstance(value, dict):
        return {key: _with_image_ids(item, images) for key, item in value.items()}
    if isinstance(value, list):
        return [_with_image_ids(item, images) for item in value]
    return value
