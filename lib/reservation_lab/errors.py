"""Errors a learner can cause, each saying what happened and what to do next."""


class LabError(RuntimeError):
    """Base class: the message is one sentence a learner can act on."""


class ToolchainError(LabError):
    """Node 22 or the pinned wrangler is missing."""


class PortBusyError(LabError):
    """The requested loopback port is already in use."""


class DevServerError(LabError):
    """`wrangler dev` exited or did not become healthy."""


class WranglerError(LabError):
    """A wrangler subcommand failed."""


class InvariantError(AssertionError):
    """A lab invariant does not hold; the message names which and how."""


class BurstReplayed(InvariantError):
    """Every answer of a burst was a replay: its requestIds had been decided before (e.g. the cell ran twice)."""
