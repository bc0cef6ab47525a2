# Sourced by scripts/demo and scripts/check: make the virtual environment and install
# latent-agent into it only when that is needed.
#
# The install is recorded in a stamp file inside the venv holding a hash of pyproject.toml,
# the Python version and the extras; a later run with the same three skips pip entirely
# (the install is editable, so code changes need no reinstall).

VENV="${LATENT_AGENT_VENV:-.venv}"
PY="${PYTHON:-python3}"

# ensure_installed EXTRAS [COVERED_BY...]: install .[EXTRAS] unless a stamp for EXTRAS,
# or for one of the COVERED_BY extras (a superset), matches the current project.
ensure_installed() {
  local extras="$1"
  shift
  if [ ! -x "$VENV/bin/python" ]; then
    echo "== creating the virtual environment $VENV (first run)"
    "$PY" -m venv "$VENV"
    "$VENV/bin/python" -m pip install --quiet --upgrade pip
  fi
  local fingerprint
  fingerprint="$({ cat pyproject.toml; "$VENV/bin/python" -c 'import sys; print(sys.version)'; } | sha256sum | cut -d' ' -f1)"
  local candidate
  for candidate in "$extras" "$@"; do
    if [ -x "$VENV/bin/latent-agent" ] && [ "$(cat "$VENV/.latent-agent-installed-$candidate" 2>/dev/null)" = "$fingerprint" ]; then
      return 0
    fi
  done
  local why="pyproject.toml or the Python version changed since the last install"
  [ -e "$VENV/.latent-agent-installed-$extras" ] || why="not installed in $VENV yet"
  echo "== installing latent-agent[$extras] into $VENV ($why)"
  # setuptools tells every editable install of a flat layout that folders named like a package take
  # precedence on import; that is how this checkout is meant to be used, so the notice is left out.
  PYTHONWARNINGS="ignore:Editable installation" "$VENV/bin/python" -m pip install --quiet -e ".[$extras]"
  echo "$fingerprint" > "$VENV/.latent-agent-installed-$extras"
}
