"""Mermaid diagrams: the source as code, which the reader's script draws.

The server does not draw a diagram (Mermaid runs in a browser only). It sends
the source in a ``<pre><code>``, so a reader without JavaScript and a feed
reader see the source as code; on the site static/js/diagrams.js draws the
diagram with Mermaid in its place.
"""

import html

# The fence info word (```` ```mermaid ````) and the language of the source.
DIAGRAM_LANGUAGE = "mermaid"
# The class a page's HTML holds when it shows a diagram (and so loads Mermaid).
DIAGRAM_CLASS = "block-diagram"


def diagram_frame(source: str) -> str:
    """Return a Mermaid diagram's source as HTML a reader's script draws.

    The source is escaped; one final line break is not part of it.
    """
    source = source.removesuffix("\n")
    return (
        f'<figure class="{DIAGRAM_CLASS}" data-diagram="{DIAGRAM_LANGUAGE}">'
        f'<pre class="diagram-source"><code class="language-{DIAGRAM_LANGUAGE}">'
        f"{html.escape(source, quote=False)}</code></pre></figure>\n"
    )
