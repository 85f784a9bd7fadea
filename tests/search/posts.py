"""Posts to search, made as the admin makes them, and the titles a search shows."""

from wagtail.rich_text import RichText

from tests.factories import PostPageFactory


def make_post(parent, title, tags=(), paragraph="", code="", **kwargs):
    fields = {"body__0__paragraph__value": RichText(f"<p>{paragraph}</p>")}
    if code:
        fields["body__1__code__code"] = code
    post = PostPageFactory(
        parent=parent, title=title, summary="", tags=list(tags), **fields, **kwargs
    )
    if tags:
        # As the admin does: publishing indexes the post with its saved tags.
        post.save_revision().publish()
    return post


def titles(client, query, **params):
    response = client.get("/search/", {"q": query, **params})
    assert response.status_code == 200
    return [hit.post.title for hit in response.context["hits"]]
