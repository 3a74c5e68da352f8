"""Find module-level tables that another module fills when it is imported.

Run in a fresh interpreter as ``python -m tests._import_watch PACKAGE``: it
imports every module of ``PACKAGE`` and prints, as JSON, each module-level
dict, list or set of the package that changed after its own module had
finished importing, with the module whose import changed it. Such a table
makes a result depend on what was imported before (issue 44: the preset
step read stems that the metric registry wrote when imported). A table a
module fills while it is itself being imported (its own code, or a function
of its own that it calls) is not reported.
"""

import importlib
import importlib.abc
import importlib.machinery
import json
import pkgutil
import sys


def _fingerprint(value):
    try:
        return repr(sorted(map(repr, value))) if isinstance(value, (dict, set)) \
            else repr(list(map(repr, value)))
    except Exception:  # a container whose items cannot be shown: its length
        return str(len(value))


class _Watch(importlib.abc.MetaPathFinder):
    """After each module of the package is imported, compare every table seen."""

    def __init__(self, package):
        self.package = package
        self.seen = {}  # (module, name) -> fingerprint
        self.changed = []

    def find_spec(self, name, path, target=None):
        if name.partition(".")[0] != self.package:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            self.after(name)

        spec.loader.exec_module = exec_module
        return spec

    def _tables(self, module_name):
        module = sys.modules.get(module_name)
        for name, value in vars(module).items() if module is not None else ():
            if isinstance(value, (dict, list, set)) and not name.startswith("__"):
                yield name, value

    def after(self, importer):
        for (module_name, name), before in list(self.seen.items()):
            value = dict(self._tables(module_name)).get(name)
            now = None if value is None else _fingerprint(value)
            if now != before:
                self.changed.append([module_name, name, importer])
                self.seen[(module_name, name)] = now
        for name, value in self._tables(importer):
            self.seen[(importer, name)] = _fingerprint(value)


def main():
    package = sys.argv[1]
    watch = _Watch(package)
    sys.meta_path.insert(0, watch)
    root = importlib.import_module(package)
    for info in pkgutil.walk_packages(root.__path__, package + "."):
        if info.name.rsplit(".", 1)[-1] == "__main__":
            continue
        try:
            importlib.import_module(info.name)
        except ImportError:  # an optional package is missing: its face is left out
            continue
    print(json.dumps(watch.changed))


if __name__ == "__main__":
    main()
