"""The kernel manager of the live check's JupyterLab: jupyter_server's own, with ``last_activity`` set at creation.

jupyter_server 2.x adds a kernel to its table before it stamps the kernel's ``last_activity``
(``MultiKernelManager._add_kernel_when_ready`` puts it in ``_kernels``; ``_async_start_kernel`` sets the stamp only
when control comes back to it, a turn of the event loop later). A ``GET /api/kernels`` that lands between the two
reads a ``last_activity`` that has no value yet (a ``TraitError``) and answers 500; JupyterLab, which lists the
kernels just after it starts one, logs a console error, and on a loaded 2-core machine the window is wide enough to
be hit (CI, 2026-12-03, chapter 4). Nothing the reader sees depends on it (JupyterLab polls again), so the check
runs the server without the race rather than letting an upstream timing bug fail a chapter: the stamp's default is
the manager's creation time, which ``_async_start_kernel`` then overwrites as it always does.
"""

from __future__ import annotations

from jupyter_server._tz import utcnow
from jupyter_server.services.kernels.kernelmanager import ServerKernelManager
from traitlets import default


class StampedKernelManager(ServerKernelManager):
    """A ``ServerKernelManager`` whose ``last_activity`` has a value from the start."""

    @default("last_activity")
    def _last_activity_default(self):
        return utcnow()
