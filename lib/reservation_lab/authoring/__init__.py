"""The authors' tools, never imported by a notebook cell: `builder` (the notebooks from notebooks/source, the cells'
names, `build execute` through papermill), `papermill_run` (`./lab run`, the course's main job), `kernel` (the named
kernelspec), `jupyter` (`./lab jupyter` and its terminals). Sits above `course` (it runs the course's notebooks); may
import every layer below it; only `cli` imports it.
"""
