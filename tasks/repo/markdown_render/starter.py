from mdlite.blocks import classify
from mdlite.escape import escape_html
from mdlite.inline import render_inline


def render(markdown: str) -> str:
    """Convert the supported Markdown subset to HTML, one block element per line."""
