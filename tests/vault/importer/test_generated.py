"""Generated Markdown and front matter thrown at the importer (hypothesis).

Whatever the file holds, `import_markdown` either imports it or reports it,
naming the file: it never crashes, and a file it fails leaves nothing behind.
"""

import datetime

import yaml
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from wagtail.models import Page

from blog.models import PostPage
from tests.vault.importer.runs import outcomes

# Text with what trips parsers up: CJK, control characters, Markdown and TeX
# punctuation, lone surrogates excluded (a file cannot hold them as UTF-8).
text = st.text(
    alphabet=st.one_of(
        st.characters(codec="utf-8", exclude_categories=["Cs"]),
        st.sampled_from(list("$\\{}[]()*_`#|<>!-:\n\t 量化共享内存")),
    ),
    max_size=60,
)
scalar = st.one_of(
    text,
    st.integers(),
    st.booleans(),
    st.none(),
    st.dates(min_value=datetime.date(1900, 1, 1), max_value=datetime.date(2100, 1, 1)),
)
front_value = st.one_of(
    scalar, st.lists(scalar, max_size=4), st.dictionaries(text, scalar, max_size=2)
)
front_key = st.one_of(
    st.sampled_from(
        [
            "title",
            "date",
            "updated",
            "tags",
            "summary",
            "draft",
            "cover",
            "slug",
            "comments",
        ]
    ),
    text,
)
front_matter = st.one_of(
    st.dictionaries(front_key, front_value, max_size=6).map(
        lambda data: yaml.safe_dump(data, allow_unicode=True)
    ),
    text,  # not YAML at all
)
piece = st.one_of(
    text,
    text.map(lambda t: f"# {t}"),
    text.map(lambda t: f"## {t}"),
    text.map(lambda t: f"${t}$"),
    text.map(lambda t: f"$$\n{t}\n$$"),
    st.tuples(st.sampled_from(["cuda", "python", "", "nope", "c++"]), text).map(
        lambda lt: f"```{lt[0]}\n{lt[1]}\n```"
    ),
    text.map(lambda t: f"- {t}\n- [{t}]({t}.md)"),
    text.map(lambda t: f"| a | {t} |\n|---|---|\n| {t} | b |"),
    text.map(lambda t: f"![{t}](images/{t}.png)"),
    text.map(lambda t: f"> [!note] {t}\n> {t}"),
    text.map(lambda t: f"<div>{t}</div><script>{t}</script>"),
    text.map(lambda t: f"{t}[^1]\n\n[^1]: {t}"),
)
document = st.tuples(st.booleans(), front_matter, st.lists(piece, max_size=8)).map(
    lambda parts: (
        (f"---\n{parts[1]}\n---\n\n" if parts[0] else "") + "\n\n".join(parts[2])
    )
)


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(source=document)
def test_a_generated_file_is_imported_or_reported_never_half_written(
    run_import, home, tmp_path_factory, source
):
    vault = tmp_path_factory.mktemp("vault")
    (vault / "post.md").write_text(source, encoding="utf-8")
    pages_before = Page.objects.count()
    with transaction.atomic():
        run = run_import(vault)
        table = outcomes(run.out)
        posts = list(PostPage.objects.filter(source_path="post.md"))
        if table.get("created", (0, 0))[0] == 1:
            assert run.error is None, run.out
            assert len(posts) == 1
            post = posts[0]
            assert post.title.strip()
            # What was imported renders.
            assert isinstance(post.rendered()["html"], bytes)
        else:
            # Reported, naming the file, and nothing of it written.
            assert table.get("failed", (0, 0))[0] == 1, run.out + run.err
            assert "post.md" in run.out
            assert posts == []
            assert Page.objects.count() == pages_before
        transaction.set_rollback(True)
