#!/usr/bin/env bash
# Drive the real `gorilla-tui` in tmux: type a task, wait for the verdict, copy the call; keep the screen.
#
# Usage: scripts/tmux_demo.sh [OUT]   (OUT default: docs/tui-screen.txt)
# Env:   GORILLA_TUI_SHARED  folder holding apibench/ (default: ../shared beside the repo)
#        GORILLA_TUI_BIN     the gorilla-tui executable (default: gorilla-tui on PATH)
#        DEMO_TASK           the task typed (default below)
# Needs tmux. Uses a fresh GORILLA_TUI_HOME in a temp dir: builds the Torch Hub index from the shared
# APIBench files, assembles the embedded model there, and removes it all at the end. Runs its own tmux
# server (a socket in that temp dir), so `tmux show-buffer` reads only what this app copied.
# Exit status: 0 when the verdict appeared and Ctrl+Y put the call in the tmux buffer, 1 otherwise.
set -euo pipefail

REPO="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${1:-$REPO/docs/tui-screen.txt}"
SHARED="${GORILLA_TUI_SHARED:-$REPO/../shared}"
BIN="${GORILLA_TUI_BIN:-gorilla-tui}"
TASK="${DEMO_TASK:-classify the sports activities in a video}"
SESSION="gorilla-demo-$$"
WIDTH=120
HEIGHT=34

command -v tmux >/dev/null || { echo "tmux_demo: tmux is not installed (apt-get install tmux)" >&2; exit 2; }
command -v "$BIN" >/dev/null || { echo "tmux_demo: $BIN not found (pip install -e .)" >&2; exit 2; }

HOME_DIR="$(mktemp -d)"
SOCKET="$HOME_DIR/tmux.sock"
tmux() { command tmux -S "$SOCKET" -f /dev/null "$@"; }
cleanup() { tmux kill-server 2>/dev/null || true; rm -rf "$HOME_DIR"; }
trap cleanup EXIT
export GORILLA_TUI_HOME="$HOME_DIR" HF_HUB_OFFLINE=1

"$BIN" index --refresh --from "$SHARED/apibench" --only torchhub >/dev/null

screen() { tmux capture-pane -t "$SESSION" -p; }

# wait_for TEXT SECONDS: poll the pane until TEXT shows up
wait_for() {
    local deadline=$((SECONDS + $2))
    while ((SECONDS < deadline)); do
        if screen | grep -qF -- "$1"; then return 0; fi
        sleep 0.2
    done
    echo "tmux_demo: '$1' did not appear within $2 s; the screen was:" >&2
    screen >&2
    return 1
}

tmux new-session -d -s "$SESSION" -x "$WIDTH" -y "$HEIGHT" \
    "env GORILLA_TUI_HOME='$HOME_DIR' HF_HUB_OFFLINE=1 TERM=xterm-256color '$BIN'"
wait_for "gorilla-tui" 10                 # first paint
wait_for "│ ready" 180                     # model loaded (the status bar's state)
tmux send-keys -t "$SESSION" -l "$TASK"
tmux send-keys -t "$SESSION" Enter
wait_for "answered" 180                   # the verdict is in
sleep 0.5
mkdir -p "$(dirname "$OUT")"
screen >"$OUT"                            # the README's picture of the app
tmux send-keys -t "$SESSION" C-y          # copy the call: it must land in tmux's own buffer
deadline=$((SECONDS + 10))
until [[ -n "$(tmux show-buffer 2>/dev/null)" ]]; do
    if ((SECONDS >= deadline)); then
        echo "tmux_demo: Ctrl+Y put nothing in the tmux buffer; the screen was:" >&2
        screen >&2
        exit 1
    fi
    sleep 0.2
done
COPIED="$(tmux show-buffer)"
wait_for "copied to the tmux buffer" 10   # the notice says so (and only then says "copied")
tmux send-keys -t "$SESSION" C-q
echo "tmux_demo: tmux buffer: $COPIED"
echo "tmux_demo: verdict shown and call copied; screen saved to $OUT"
grep -E "✔|✘|∅" "$OUT" | head -1 || true
