"""Packaging with the lowest setuptools the build allows.

``license = "MIT"`` (an SPDX expression, PEP 639) needs setuptools 77; the build requirement
says so, and this test builds the sdist and the wheel with exactly the lowest version it
allows (downloaded from PyPI with pip; skipped with the reason when it cannot be). It also
checks the one version source (``service.__version__``) and the declared dependencies of
what ``service`` imports (webargs, werkzeug, urllib3).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

from service import __version__

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def lowest_setuptools() -> str:
    """X of the build requirement ``setuptools>=X``."""
    (spec,) = [r for r in PYPROJECT["build-system"]["requires"] if r.startswith("setuptools")]
    match = re.fullmatch(r"setuptools>=([\d.]+)", spec.replace(" ", ""))
    assert match, f"build requirement {spec!r} has no lower bound"
    return match.group(1)


def test_one_version_source():
    assert "version" not in PYPROJECT["project"]
    assert "version" in PYPROJECT["project"]["dynamic"]
    attr = PYPROJECT["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    assert attr == "service.__version__"


def test_imported_packages_are_declared():
    declared = {
        re.split(r"[<>=!\[; ]", dep, maxsplit=1)[0].lower()
        for dep in PYPROJECT["project"]["dependencies"]
    }
    assert {"webargs", "werkzeug", "urllib3", "flask-cors"} <= declared


@pytest.mark.slow
def test_sdist_and_wheel_build_with_the_lowest_allowed_setuptools(tmp_path: Path):
    version = lowest_setuptools()
    download = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:"]
        + ["--dest", str(tmp_path / "dl"), f"setuptools=={version}"],
        capture_output=True,
        text=True,
    )
    if download.returncode != 0:
        pytest.skip(f"cannot download setuptools=={version} from PyPI: {download.stderr[-300:]}")
    (wheel,) = (tmp_path / "dl").glob("setuptools-*.whl")
    backend = tmp_path / "backend"
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(backend)  # a pure-Python wheel: importable as it is

    src = tmp_path / "src"  # a copy: the build writes *.egg-info and build/ next to the sources
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for package in ("service", "adapters", "schemas"):
        shutil.copytree(ROOT / package, src / package, ignore=ignore)

    script = (
        "import setuptools, setuptools.build_meta as b; "
        "s = b.build_sdist('dist'); w = b.build_wheel('dist'); "
        "print('=>', setuptools.__version__, s, w)"
    )
    build = subprocess.run(
        [sys.executable, "-c", script],
        cwd=src,
        env={
            "PYTHONPATH": str(backend),
            "PATH": "/usr/bin:/bin",
            "SETUPTOOLS_USE_DISTUTILS": "local",
        },
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr[-3000:]
    (result,) = [line for line in build.stdout.splitlines() if line.startswith("=> ")]
    used, sdist, wheel_name = result.split()[1:]
    assert used == version

    with zipfile.ZipFile(src / "dist" / wheel_name) as zf:
        names = zf.namelist()
        meta = zf.read(f"sightline-{__version__}.dist-info/METADATA").decode()
    assert "service/data/sample-scene.json" in names
    assert "adapters/detect.py" in names and "schemas/scene.py" in names
    assert f"\nVersion: {__version__}\n" in meta
    assert "\nLicense-Expression: MIT\n" in meta
    for dep in ("webargs", "werkzeug", "urllib3"):
        assert re.search(rf"^Requires-Dist: {dep}\b", meta, re.M | re.I), dep
    with tarfile.open(src / "dist" / sdist) as tf:
        members = tf.getnames()
    assert f"sightline-{__version__}/pyproject.toml" in members
    assert f"sightline-{__version__}/service/data/sample-scene.json" in members
