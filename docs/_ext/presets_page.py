"""The compatibility page's preset tables, written from the preset table in the code.

``docs/conf.py`` writes :func:`presets_rst` to ``docs/generated/presets.inc``
at build time from ``skrank._core._presets.PRESETS``, so the page and the
code cannot disagree.
"""

from skrank._core._presets import PRESETS, input_rules

#: an empty cell of the preset tables: a dash, not "-" (a list item in rst)
NONE = "\N{EM DASH}"


def presets_rst():
    """The presets as reStructuredText: the docs' compatibility page includes it."""
    lines = []
    for convention in PRESETS.values():
        title = f"``compat={convention.name!r}``: {convention.peer} {convention.version}"
        lines += [title, "~" * len(title), ""]
        options = ", ".join(
            f"``{key}={value!r}``" for key, value in convention.options.items())
        lines += [f"Every metric: {options}.", ""]
        lines += [
            ".. list-table::", "   :header-rows: 1", "   :widths: 20 35 45", "",
            "   * - skrank metric", f"     - {convention.peer}'s names",
            "     - options of this metric",
        ]
        for stem, metric in convention.metrics.items():
            names = ", ".join(f"``{name.replace('{k}', 'k')}``" for name in metric.names)
            extra = ", ".join(f"``{key}={value!r}``" for key, value in metric.options.items())
            if metric.k is not None:
                extra += (", " if extra else "") + f"a bare name is @{metric.k}"
            notes = "; ".join(([metric.note] if metric.note else []) + input_rules(metric))
            if notes:
                extra += (" (" if extra else "") + notes + (")" if extra else "")
            lines += [f"   * - ``{stem}``", f"     - {names}", f"     - {extra or NONE}"]
        for alias, (stem, options) in convention.aliases.items():
            extra = ", ".join(f"``{key}={value!r}``" for key, value in options.items())
            lines += [f"   * - ``{stem}``", f"     - ``{alias}``", f"     - {extra or NONE}"]
        lines += [""]
        lines += [f"* {note}" for note in convention.notes]
        lines += [""]
    return "\n".join(lines)
