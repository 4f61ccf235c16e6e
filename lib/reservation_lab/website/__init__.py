"""The course as a static website (`./lab site`): `build` (stages the committed notebooks and the pages around them
in each language, runs Sphinx offline, swaps the new site in), `shared_assets` (the theme's files that are identical
in every language, shipped once), `theme_words` (the theme's labels as message catalogs) and `sphinx_extension`
(loaded by website/conf.py inside Sphinx; it imports nothing of the course). May import `authoring` (the notebooks'
paths) and the layers below; only `cli` imports it.
"""
