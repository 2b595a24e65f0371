from mdlite.render import render


def test_example():
    assert render("# Hi\n\nSome *text*\n- a\n- b") == (
        "<h1>Hi</h1>\n<p>Some <em>text</em></p>\n<ul>\n<li>a</li>\n<li>b</li>\n</ul>"
    )


def test_empty():
    assert render("") == ""
