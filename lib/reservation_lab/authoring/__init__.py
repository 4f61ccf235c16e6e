"""The authors' and teachers' tools, never imported by a notebook cell: `builder` (the lab and exercises notebooks
from notebooks/source, the cells' names, `build execute` through papermill), `papermill_run` (`./lab run`, the
course's main job), `grading` (`./lab grade`: every learner notebook in a folder, a table learner x check),
`kernel` (the named kernelspec), `jupyter` (`./lab jupyter` and its terminals). Sits above `course` (it runs the
course's notebooks); may import every layer below it; only `cli` imports it.
"""
