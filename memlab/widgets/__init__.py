"""Interactive notebook widgets (ipywidgets).

- :class:`Explorer` (:mod:`memlab.widgets.explorer`): one query's ranking under live fusion /
  decay / MMR / cut settings, re-ranked from cached legs;
- :class:`SweepBrowser` (:mod:`memlab.widgets.sweep_browser`): filter and rank sweep results,
  export the selected configuration;
- :class:`Assessor` (:mod:`memlab.widgets.assessor`): label queries on a workspace by pooling
  several systems' top hits, saved in the memory dataset format.

All are plain Python objects holding their widgets: display one in a notebook, or drive it
from code and tests by setting widget values or calling its methods.

>>> from memlab.widgets import Assessor, Explorer, SweepBrowser  # doctest: +SKIP
"""

from memlab.widgets.assessor import Assessor
from memlab.widgets.explorer import Explorer, relevant_grades
from memlab.widgets.sweep_browser import SweepBrowser

__all__ = ["Assessor", "Explorer", "SweepBrowser", "relevant_grades"]
