"""The course layer: the facade the notebook cells import, friendly errors, the notebook builder, papermill runs."""

from reservation_lab.course.helpers import *  # noqa: F403
from reservation_lab.course.helpers import __all__  # noqa: F401
