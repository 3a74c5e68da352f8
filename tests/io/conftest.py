"""Fixtures of the tests that compare with trec_eval: its own test files."""

import os
import tarfile

import pytest

SOURCE = "/work/shared/tools/trec_eval-src.tar.gz"


@pytest.fixture(scope="session")
def trec_test_files(tmp_path_factory):
    if not os.path.exists(SOURCE):
        pytest.skip(f"no trec_eval source archive at {SOURCE}")
    folder = tmp_path_factory.mktemp("te")
    with tarfile.open(SOURCE) as archive:
        members = [m for m in archive.getmembers()
                   if m.name.endswith(("test/qrels.test", "test/results.test"))]
        archive.extractall(folder, members=members, filter="data")
    found = {m.name.rsplit("/", 1)[1]: str(folder / m.name) for m in members}
    return found["qrels.test"], found["results.test"]
