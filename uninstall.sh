#!/usr/bin/env bash
# Gravebox uninstaller: undoes install.sh (the code lives there, so both agree on every path).
#
#   sudo ./uninstall.sh           remove the service, rules, venv and boot settings; keep the
#                                 state (/var/lib/gravebox: enrolled cards, games)
#   sudo ./uninstall.sh --purge   also remove the state and edited /etc/gravebox files
#   ./uninstall.sh --root DIR     the same under DIR, commands only printed
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/install.sh" --uninstall "$@"
