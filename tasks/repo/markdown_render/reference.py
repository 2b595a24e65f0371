from mdlite.blocks import classify
from mdlite.escape import escape_html
from mdlite.inline import render_inline


def render(markdown: str) -> str:
    """Convert the supported Markdown subset to HTML, one block element per line."""
    html: list[str] = []
    paragraph: list[str] = []
    open_list: str | None = None
    code: list[str] | None = None
    language = ""

    def close_paragraph() -> None:
        if paragraph:
            html.append(f"<p>{render_inline(' '.join(paragraph))}</p>")
            paragraph.clear()

    def close_list() -> None:
        nonlocal open_list
        if open_list is not None:
            html.append(f"</{open_list}>")
            open_list = None

    def emit_code(lines: list[str]) -> None:
        attribute = f' class="language-{escape_html(language)}"' if language else ""
        body = escape_html("\n".join(lines))
        html.append(f"<pre><code{attribute}>{body}</code></pre>")

    for raw in markdown.splitlines():
        if code is not None:
            if raw.strip().startswith("```"):
                emit_code(code)
                code = None
            else:
                code.append(raw)
            continue
        line = classify(raw)
        if line.kind in ("bullet", "ordered"):
            close_paragraph()
            tag = "ul" if line.kind == "bullet" else "ol"
            if open_list != tag:
                close_list()
                html.append(f"<{tag}>")
                open_list = tag
            html.append(f"<li>{render_inline(line.text)}</li>")
        elif line.kind == "text":
            close_list()
            paragraph.append(line.text)
        else:
            close_paragraph()
            close_list()
            if line.kind == "heading":
                html.append(f"<h{line.level}>{render_inline(line.text)}</h{line.level}>")
            elif line.kind == "fence":
                code = []
                language = line.text
    if code is not None:
        emit_code(code)
    close_paragraph()
    close_list()
    return "\n".join(html)
