"""The authors' and teachers' tools, never imported by a notebook cell: `builder` (the lab and exercises notebooks
from notebooks/source, the cells' names, `build execute` through papermill), `translations` (which translated
entries were written against English that changed since), `papermill_run` (`./lab run`, the course's main job),
`grading` (`./lab grade`: every learner notebook in a folder, a table learner x check), `nbgrader_course` (`./lab
nbgrader`: the exercises as an nbgrader course), `site` (`./lab site`: the course as a website) with
`site_sphinx` (its Sphinx extension, loaded by website/conf.py, importing nothing of the course), `kernel` (the
named kernelspec), `socket_kernels` and `papermill_engine` (every unattended run's kernel on socket files, not TCP
ports), `jupyter` (`./lab jupyter` and its terminals). Sits above `course` (it runs the course's notebooks); may
import every layer below it; only `cli` imports it (and pytest, which loads `socket_kernels` as a plugin; Sphinx,
which loads `site_sphinx`).
"""
