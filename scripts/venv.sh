#!/bin/sh
# The project's environment for `make install` / `make install-dev` (README "Set up").
#   sh scripts/venv.sh PYTHON VENV runtime|dev|kernel
# `kernel` compiles the measurement kernel (numba) into its cache in the checkout, saying
# so and how long it took, so that `make run`'s first start loads it in seconds.
# Rebuilds VENV when it is missing, broken or from a Python older than 3.11 (issue 17:
# a wrong Python used to leave a .venv that kept failing). Quiet: one line per step;
# pip's errors still show.
set -eu
python=$1 venv=$2 what=$3
bin=$venv/bin
stamp=$bin/.sightline-$what
new_enough='import sys; sys.exit(sys.version_info < (3, 11))'
pip() {
    # the setuptools "Editable installation" notice is information, not a failure
    PYTHONWARNINGS="ignore:Editable installation" "$bin/python" -m pip --quiet --quiet "$@"
}

if [ "$what" = kernel ]; then
    if ls service/geometry/__pycache__/*.nbi >/dev/null 2>&1; then
        # a cache is there: numba loads what is current and compiles only what changed
        echo "sightline: checking the measurement kernel's cache (numba; recompiles what changed)" >&2
    else
        echo "sightline: compiling the measurement kernel (numba) into its cache: once, it takes a while" >&2
    fi
    start=$(date +%s)
    "$bin/python" -c 'from service.geometry import exact, trace; trace.warm_up(); exact.warm_up()'
    echo "sightline: kernel ready in $(( $(date +%s) - start )) s; servers load it from the cache" >&2
    touch "$stamp"
    exit 0
fi
if [ -f "$stamp" ] && [ "$stamp" -nt pyproject.toml ] && "$bin/python" -c "$new_enough" 2>/dev/null; then
    exit 0
fi
if ! "$python" -c "$new_enough" 2>/dev/null; then
    found=$("$python" -V 2>/dev/null) || found="not found"
    echo "sightline: Python 3.11+ is needed; '$python' is: $found." >&2
    echo "sightline: install one, or name it: make run PYTHON=python3.12" >&2
    exit 1
fi
if ! { "$bin/python" -c "$new_enough" && "$bin/python" -m pip --version; } >/dev/null 2>&1; then
    if [ -e "$venv" ]; then
        echo "sightline: $venv is broken or from an old Python: rebuilding it" >&2
    fi
    rm -rf "$venv"
    if ! "$python" -m venv "$venv"; then
        rm -rf "$venv"
        echo "sightline: cannot create $venv with $python (Debian/Ubuntu: apt install python3-venv)" >&2
        exit 1
    fi
    pip install --upgrade pip
fi
rm -f "$bin"/.sightline-*
if [ "$what" = dev ]; then
    echo "sightline: installing the service, test and lint tools into $venv (first time: a few minutes)" >&2
    pip install -e ".[dev]"
    touch "$bin/.sightline-runtime"
else
    echo "sightline: installing the service into $venv (first time: about a minute)" >&2
    pip install -e .
fi
touch "$stamp"
