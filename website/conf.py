"""The course website's Sphinx configuration, the same for every language (built by `./lab site`).

`website/build.py` builds each language separately (`-D language=<lang>`: Sphinx's and the theme's own words and
the search stemmer in that language) from a staged copy of the committed notebooks; the per-language values
(title, repository and launch buttons, the language switcher's links) come from the extension
`reservation_lab.website.sphinx_extension`, which reads the `site.json` staged beside the pages.
"""

project = "Durable Objects + SQLite"
extensions = ["myst_nb", "reservation_lab.website.sphinx_extension"]
exclude_patterns = ["site.json", "locale"]
templates_path = ["_templates"]
html_static_path = ["_static"]
html_css_files = ["course-site.css"]
html_js_files = ["language-switcher.js"]
html_favicon = "_static/favicon.svg"
html_context = {"default_mode": "auto"}  # light or dark as the reader's system prefers (the theme wants it named)
smartquotes = False  # the notebooks' text as JupyterLab shows it: a quoted value stays a value you can copy
html_copy_source = True  # the theme's download button offers the notebook (.ipynb) itself
html_show_sourcelink = False

html_theme = "sphinx_book_theme"
html_theme_options = {
    "article_header_end": ["language-switcher.html", "article-header-buttons.html"],
    "use_download_button": True,
    "show_toc_level": 2,
    "navbar_persistent": [],  # search: the sidebar's field (the theme also put one in a header bar of its own)
    "footer_content_items": ["extra-footer.html"],  # the licence sentence (site_sphinx), no "By <author>" line
    "launch_buttons": {"notebook_interface": "jupyterlab"},  # binderhub/jupyterhub: site_sphinx, when given
}

# MyST-NB: the stored, nbval-checked outputs as they are; nothing is executed while the site is built.
nb_execution_mode = "off"
nb_merge_streams = True  # one block per stream, as JupyterLab shows a cell's prints
nb_ipywidgets_js = {}  # no widget manager from a CDN: the course has no widgets, and the site loads nothing remote
# The race plot's output carries the SVG and, for JupyterLab, an HTML image of it: the site takes the SVG, written
# to _images/ as a file with the figure's alt text (website/build.py).
nb_mime_priority_overrides = [("html", "image/svg+xml", 0)]
# The theme's words in the page's language: the course's catalogs first (website/theme_words.py stages them).
locale_dirs = ["locale"]
