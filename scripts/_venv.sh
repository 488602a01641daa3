# Sourced by the README's commands (scripts/lint-example, scripts/test, scripts/lint-sglang):
# a project virtual environment in $SGLANG_LINT_VENV (default .venv) with the project
# installed editable; with its test extras too where $SGLANG_LINT_EXTRAS is "test" (the
# default; scripts/lint-example sets it empty: the linter alone installs in seconds). pip runs
# when the environment is new, lacks the extras asked for, or was installed from another
# checkout or another pyproject.toml (delete $VENV/.sglang-lint-installed* to force it);
# changed sources need no reinstall.
VENV="${SGLANG_LINT_VENV:-.venv}"
EXTRAS="${SGLANG_LINT_EXTRAS-test}"
WANT="$(pwd)
$(cat pyproject.toml)"
_sglang_lint_stamp() {  # the stamp of an install with extras $1 ("" for the project alone)
    echo "$VENV/.sglang-lint-installed${1:+-$1}"
}
_sglang_lint_has() {
    [ -f "$(_sglang_lint_stamp "$1")" ] && [ "$(cat "$(_sglang_lint_stamp "$1")")" = "$WANT" ]
}
if [ ! -x "$VENV/bin/python" ] || ! { _sglang_lint_has "$EXTRAS" || _sglang_lint_has test; }; then
    echo "setting up $VENV (once): pip install -e '.${EXTRAS:+[$EXTRAS]}'" >&2
    if [ ! -x "$VENV/bin/python" ]; then
        python3 -m venv "$VENV"
    fi
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e ".${EXTRAS:+[$EXTRAS]}"
    printf '%s' "$WANT" > "$(_sglang_lint_stamp "$EXTRAS")"
fi
