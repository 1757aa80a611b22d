#!/bin/sh
# Measures what the README says about starting: the kernel's compile (numba, cold cache),
# then a server's start with that cache (gunicorn until /healthz answers), and writes
# docs/start-times.md. Run from the checkout after `make install`:
#   sh scripts/measure-start.sh [PORT]
# It empties the kernel's cache first (service/geometry/__pycache__/*.nbi, *.nbc), which the
# compile then rebuilds.
set -eu
port=${1:-8791}
py=${PYTHON:-.venv/bin/python}
gunicorn=$(dirname "$py")/gunicorn
out=docs/start-times.md
now() { "$py" -c 'import time; print(f"{time.monotonic():.3f}")'; }
elapsed() { "$py" -c "print(f'{$2 - $1:.0f}')"; }

rm -f service/geometry/__pycache__/*.nbi service/geometry/__pycache__/*.nbc
t0=$(now)
"$py" -c 'from service.geometry import exact, trace; trace.warm_up(); exact.warm_up()'
t1=$(now)
compile=$(elapsed "$t0" "$t1")

start_server() {
    t0=$(now)
    SIGHTLINE_PRELOAD_SAMPLE=1 "$gunicorn" -c gunicorn.conf.py --bind "127.0.0.1:$port" \
        'service.app:create_app()' >/dev/null 2>&1 &
    pid=$!
    until curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; do
        kill -0 "$pid" 2>/dev/null || { echo "gunicorn stopped; is port $port free?" >&2; exit 1; }
        sleep 0.2
    done
    t1=$(now)
    kill "$pid"; wait "$pid" 2>/dev/null || true
    elapsed "$t0" "$t1"
}
warm=$(start_server)

cores=$(nproc)
cpu=$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)
cat > "$out" <<MD
# Start-up times, measured

Written by \`sh scripts/measure-start.sh\` (do not edit by hand) on $(date -u +%Y-%m-%d),
$cores cores ($cpu), $("$py" -V).

| step | seconds |
| --- | --- |
| compiling the measurement kernel with an empty cache (\`make install\` does it once) | $compile |
| \`gunicorn\` start to the first \`/healthz\` answer, kernel cached (\`make run\` after install) | $warm |

Without the cached kernel (an install by pip alone), the first start adds the compile above
before the server listens. Other work on the machine slows both.
MD
echo "compile ${compile} s, start ${warm} s: $out" >&2
