"""For teachers: `marking` (`./lab mark`: every learner notebook in a folder run unattended, a table learner x
check) and `nbgrader_course` (`./lab nbgrader`: the exercises as an nbgrader course for a teacher's JupyterHub).
Not the learner's `lab.grade` (the exercise judge, `exercises/grader.py`). May import `authoring` (the notebooks'
paths), `jupyter`, `course` and every layer below; only `cli` imports it.
"""
