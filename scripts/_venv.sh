# Sourced by scripts/test and scripts/lint-sglang: a project virtual environment in
# $SGLANG_LINT_VENV (default .venv), created once, with the project installed into it.
VENV="${SGLANG_LINT_VENV:-.venv}"
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e ".[test]"
