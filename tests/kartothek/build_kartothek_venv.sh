#!/usr/bin/env bash
# Build a separate virtualenv with real Kartothek 5.3 (it needs pyarrow < 7 per its metadata,
# but reads fine with pyarrow 12, which the shared fixtures were written with).
# Usage: tests/kartothek/build_kartothek_venv.sh [VENV_DIR] [KARTOTHEK_WHEEL_OR_SPEC]
# The cross-read test (tests/kartothek/test_kartothek_cross_read.py) uses $KARTOTHEK_VENV
# or the default below, and skips when it does not exist.
set -euo pipefail
VENV=${1:-${KARTOTHEK_VENV:-/tmp/kartothek-venv}}
KTK=${2:-kartothek==5.3.0}
find_python() {
    for v in 3.9 3.8 3.10; do
        for cand in "$HOME"/.pyenv/versions/$v*/bin/python$v; do
            [ -x "$cand" ] && { echo "$cand"; return; }
        done
        if command -v "python$v" >/dev/null && "python$v" -c pass 2>/dev/null; then command -v "python$v"; return; fi
    done
}
PY=${KARTOTHEK_PYTHON:-$(find_python)}
[ -n "$PY" ] || { echo "no python 3.8-3.10 found" >&2; exit 1; }
"$PY" -m venv "$VENV"
"$VENV/bin/pip" install -q --upgrade pip
"$VENV/bin/pip" install -q "pyarrow==12.0.1" "pandas==1.5.3" "numpy<1.24" "dask[dataframe]==2022.12.1" \
    decorator deprecation msgpack simplejson simplekv storefact toolz urlquote zstandard attrs click \
    prompt-toolkit pyyaml
"$VENV/bin/pip" install -q --no-deps "$KTK"
"$VENV/bin/python" -c "import kartothek, pyarrow; print('kartothek', kartothek.__version__, 'pyarrow', pyarrow.__version__)"
