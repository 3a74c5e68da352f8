"""Dask's messages about skrank's own work, silenced for the duration of a call.

stdlib only (logging, warnings): skrank.dask and skrank.stats (compare on
Dask frames) both use it, and neither may import the other.
"""

import contextlib
import logging
import warnings

#: distributed's P2P shuffle logs "Shuffle ... initialized by task ..." and
#: "... deactivated" at WARNING level, from a scheduler in this process
SHUFFLE_LOGGER = "distributed.shuffle._scheduler_plugin"


@contextlib.contextmanager
def quiet_dask():
    """Silence, for the ``with`` block only, what Dask says about skrank's plan.

    * distributed's ``UserWarning`` "Sending large graph of size ...": the
      graph carries the caller's rows when they started in memory
      (``dd.from_pandas``); it is advice about loading data, sent again at
      every call, not about the call;
    * the shuffle's log lines at WARNING level, which a scheduler running in
      this process (``LocalCluster``) writes to stderr at every shuffle.

    Both are restored on exit: the warning filters by
    ``warnings.catch_warnings`` and the logger by its previous level, so other
    messages and other calls are untouched. Errors are never silenced.
    """
    logger = logging.getLogger(SHUFFLE_LOGGER)
    level = logger.level
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Sending large graph",
                                category=UserWarning)
        if logger.getEffectiveLevel() < logging.ERROR:
            logger.setLevel(logging.ERROR)
        try:
            yield
        finally:
            logger.setLevel(level)
