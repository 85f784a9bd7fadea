"""MkDocs syntax in a body: admonitions, content tabs, attribute lists."""

from PIL import Image

from tests.vault.importer.parsing import parse, types


def test_mkdocs_admonitions_become_callouts():
    body = parse(
        """
        !!! note "Read *this* first"
            The kernel needs $O(n)$ memory.

            - load
            - store

        !!! warning
            Check the return code.

        ??? tip "Folded"
            Shown open.

        ???+ abstract
            Summary.

        !!! note ""
            No title bar.

        !!! note "Only a title"
        """
    )

    assert [(b.type, b.line) for b in body.blocks] == [
        ("callout", 1),
        ("callout", 7),
        ("callout", 10),
        ("callout", 13),
        ("callout", 16),
        ("callout", 19),
    ]
    assert [b.value for b in body.blocks] == [
        {
            "kind": "note",
            "title": "Read this first",
            "body": "<p>The kernel needs $O(n)$ memory.</p>"
            "<ul><li>load</li><li>store</li></ul>",
        },
        {"kind": "warning", "title": "", "body": "<p>Check the return code.</p>"},
        {"kind": "tip", "title": "Folded", "body": "<p>Shown open.</p>"},
        {"kind": "info", "title": "", "body": "<p>Summary.</p>"},
        {"kind": "note", "title": "", "body": "<p>No title bar.</p>"},
        {"kind": "note", "title": "", "body": "<p>Only a title</p>"},
    ]
    assert body.warnings == []


def test_an_unknown_admonition_type_is_a_note_with_a_warning():
    body = parse(
        """
        Text.

        !!! sidebar "Aside"
            Kept.
        """
    )

    assert body.blocks[1].value == {
        "kind": "note",
        "title": "Aside",
        "body": "<p>Kept.</p>",
    }
    assert [(w.message, w.line) for w in body.warnings] == [
        ("unknown admonition type !!! sidebar; imported as a note", 3)
    ]


def test_an_admonition_holding_code_math_or_another_admonition_is_kept_as_markdown():
    body = parse(
        """
        !!! info "Build"
            Run:

            ```bash
            make -j
            ```

        !!! note "Outer"
            !!! danger "Inner"
                $$
                x^2
                $$

        Done.
        """
    )

    assert types(body) == ["markdown", "markdown", "paragraph"]
    assert body.blocks[0].value == (
        '!!! info "Build"\n    Run:\n\n    ```bash\n    make -j\n    ```'
    )
    assert body.blocks[1].value.startswith('!!! note "Outer"\n    !!! danger')
    assert [f.tex.strip() for f in body.formulas] == ["x^2"]
    assert body.warnings == []


def test_an_image_in_an_admonition_stays_inside_it(tmp_path):
    Image.new("RGB", (4, 4)).save(tmp_path / "fig.png")
    body = parse(
        """
        !!! example "Figure"
            See below.

            ![tile](fig.png)
        """,
        tmp_path,
    )

    # A Markdown block, which renders the admonition as a callout with the image
    # in it; the image itself goes into the media library.
    assert types(body) == ["markdown"]
    assert body.blocks[0].value == (
        '!!! example "Figure"\n    See below.\n\n    ![tile](\ue0030\ue004)'
    )
    assert [image.path.name for image in body.images] == ["fig.png"]


def test_content_tabs_become_a_heading_per_tab_with_its_content():
    body = parse(
        """
        ## About

        === "中文"

            我写 GPU 内核。

            ```cuda
            __global__ void k() {}
            ```

        === "English"
            I write GPU kernels.

        Both languages end here.
        """
    )

    assert [(b.type, b.value) for b in body.blocks] == [
        ("heading", {"text": "About", "level": "h2"}),
        ("heading", {"text": "中文", "level": "h3"}),
        ("paragraph", "<p>我写 GPU 内核。</p>"),
        (
            "code",
            {
                "language": "cuda",
                "filename": "",
                "code": "__global__ void k() {}",
                "highlight_lines": "",
                "line_numbers": True,
            },
        ),
        ("heading", {"text": "English", "level": "h3"}),
        ("paragraph", "<p>I write GPU kernels.</p><p>Both languages end here.</p>"),
    ]


def test_attribute_lists_are_dropped_from_images_links_and_headings(tmp_path):
    Image.new("RGB", (4, 4)).save(tmp_path / "fig.png")
    body = parse(
        """
        # Tiling { #top }

        ![tile](fig.png){ width="200px" }

        See [docs](https://e.com){ width=300 } and ![x](fig.png){: .center } here.

        A line with {: .note } braces inside, and a set {a, b}.
        {: .lead }

        ## Results { .wide align=right style="color: red" }
        """,
        tmp_path,
    )

    assert body.h1 == "Tiling"
    assert types(body) == ["image", "paragraph", "image", "paragraph", "heading"]
    assert body.blocks[1].value == '<p>See <a href="https://e.com">docs</a> and</p>'
    assert body.blocks[3].value == (
        "<p>here.</p><p>A line with {: .note } braces inside, and a set {a, b}.</p>"
    )
    assert body.blocks[4].value == {"text": "Results", "level": "h2"}
    assert body.warnings == []


def test_an_admonition_whose_code_has_two_blank_lines_stays_whole():
    body = parse(
        """
        !!! example "Two functions"
            ```python
            def a():
                pass


            def b():
                pass
            ```

        After.
        """
    )

    assert types(body) == ["markdown", "paragraph"]
    assert body.blocks[0].value.endswith("        pass\n    ```")
    assert body.blocks[1].value == "<p>After.</p>"
