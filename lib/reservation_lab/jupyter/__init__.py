"""Kernels and notebook plumbing: `kernelspec` (the named `reservation-lab` kernel), `socket_kernels` (every
unattended kernel on socket files, not TCP ports; also the pytest plugin that gives nbval the same), `papermill_engine`
(papermill through those kernels) and `jupyterlab` (`./lab jupyter`: JupyterLab on the learner's own copies, and
its terminals' environment). May import `runtime` and `paths`; imported by `authoring`, `teaching` and `cli` (and by
pytest, which loads `socket_kernels` as a plugin).

The notebooks are run by five drivers, each the one its tool or its user needs:
- papermill in-process (`papermill_engine.execute`): `./lab run`, `./lab local` and `build execute`, because they
  inject parameters and keep the executed notebook;
- papermill's command line (`teaching/marking.py`): `./lab mark`, each submission in a process of its own, so that
  one learner's crash or hang cannot touch another's;
- nbval (the pytest plugin): the committed notebooks in `./lab test`, because it checks their stored outputs, as a
  course's CI does;
- nbgrader's Execute (`teaching/nbgrader_course.py`): `nbgrader autograde`, nbgrader's own pipeline as a teacher
  runs it;
- JupyterLab: the learner's Run All, in a browser (the browser test) or over the kernel's websocket (the class drill).

The tests drive cells one by one with nbclient (`tests/support.py`), to stop between them; that is a test tool, not
a way the course runs.
"""
