"""For course authors: `builder` (the lab and exercises notebooks from notebooks/source, the cells' names, `build
execute`), `translations` (which translated entries were written against English that changed since) and
`papermill_run` (`./lab run` and `./lab local`, the course's main job). Never imported by a notebook cell. May import
`jupyter` (kernels and the papermill engine), `course` and every layer below; imported by `teaching`, `website` and
`cli`.

Which driver runs which notebook, and why there are five: `jupyter/__init__.py`.
"""
