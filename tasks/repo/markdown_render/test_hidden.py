from mdlite.render import render


def test_example():
    assert render("# Hi\n\nSome *text*\n- a\n- b") == (
        "<h1>Hi</h1>\n<p>Some <em>text</em></p>\n<ul>\n<li>a</li>\n<li>b</li>\n</ul>"
    )


def test_empty_and_blank_only():
    assert render("") == ""
    assert render("\n  \n\t\n") == ""


def test_paragraph_lines_joined_and_escaped():
    text = "Fish & chips\n  cost <b>5</b> 'euros'\n\nNext **bold** [site](http://x.org/?a=1&b=2)"
    assert render(text) == (
        "<p>Fish &amp; chips cost &lt;b&gt;5&lt;/b&gt; &#x27;euros&#x27;</p>\n"
        '<p>Next <strong>bold</strong> <a href="http://x.org/?a=1&amp;b=2">site</a></p>'
    )


def test_heading_levels_and_inline_code():
    assert render("### Use `a<b` *now*\n###### six") == (
        "<h3>Use <code>a&lt;b</code> <em>now</em></h3>\n<h6>six</h6>"
    )


def test_lists_switch_kind_and_end_on_text():
    text = "- one\n* two\n1. first\n2) second\nafter\n+ again"
    assert render(text) == (
        "<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n"
        "<ol>\n<li>first</li>\n<li>second</li>\n</ol>\n"
        "<p>after</p>\n"
        "<ul>\n<li>again</li>\n</ul>"
    )


def test_list_item_ends_paragraph():
    assert render("intro line\n- item") == "<p>intro line</p>\n<ul>\n<li>item</li>\n</ul>"


def test_fenced_code_verbatim_and_escaped():
    text = "before\n```python\nif a < b:\n    print('**x**')\n\n# not a heading\n```\nafter"
    assert render(text) == (
        "<p>before</p>\n"
        '<pre><code class="language-python">if a &lt; b:\n    print(&#x27;**x**&#x27;)\n\n# not a heading</code></pre>\n'
        "<p>after</p>"
    )


def test_fence_without_language_and_unclosed():
    assert render("```\n<tag>\n- x") == "<pre><code>&lt;tag&gt;\n- x</code></pre>"
    assert render("- a\n```\ncode\n```") == "<ul>\n<li>a</li>\n</ul>\n<pre><code>code</code></pre>"


def test_not_a_heading_without_space():
    assert render("#hashtag and #1") == "<p>#hashtag and #1</p>"


def test_unicode_text():
    assert render("## Café\nnaïve *résumé*") == "<h2>Café</h2>\n<p>naïve <em>résumé</em></p>"
