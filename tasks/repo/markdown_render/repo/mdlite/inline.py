"""Inline markup: `code`, **strong**, *emphasis* and [links](url)."""

import re

from mdlite.escape import escape_html

_CODE = re.compile(r"`([^`]+)`")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
_STRONG = re.compile(r"\*\*(.+?)\*\*")
_EM = re.compile(r"\*(.+?)\*")


def _format(text: str) -> str:
    text = escape_html(text)
    text = _LINK.sub(lambda m: f'<a href="{m.group(2)}">{m.group(1)}</a>', text)
    text = _STRONG.sub(r"<strong>\1</strong>", text)
    return _EM.sub(r"<em>\1</em>", text)


def render_inline(text: str) -> str:
    """Escape `text` and render inline markup; code spans are escaped but not formatted."""
    parts = []
    position = 0
    for match in _CODE.finditer(text):
        parts.append(_format(text[position : match.start()]))
        parts.append(f"<code>{escape_html(match.group(1))}</code>")
        position = match.end()
    parts.append(_format(text[position:]))
    return "".join(parts)
