"""The course as a static website (`./lab site`): `build` (stages the committed notebooks and the pages around them
in each language, runs Sphinx offline, swaps the new site in) and `sphinx_extension` (loaded by website/conf.py
inside Sphinx; it imports nothing of the course). May import `authoring` (the notebooks' paths) and the layers
below; only `cli` imports it.
"""
