#!/usr/bin/env bash
# qrenderdoc-shot.sh RDC OUT.png [EVENT-FILTER]
#
# Opens a RenderDoc capture in qrenderdoc on a private Xvfb display, selects one event (by
# default the first vkCmdBeginRenderPass), shows the Event Browser with the frame's render
# passes and markers next to the Resource Inspector on that render pass (its attachments
# expanded: format, loadOp, storeOp, layouts), and writes a PNG screenshot of the window.
#
# EVENT-FILTER: an event ID, or a case-insensitive part of an event's name as the Event
#   Browser shows it ("vkCmdBeginRenderPass", "lighting", "vkCmdNextSubpass2() => 2").
# Environment:
#   SHOT_VIEW=renderpass|pipeline|resource:NAME
#                                   the right-hand panel: Resource Inspector on the event's
#                                   VkRenderPass (default), Pipeline State at the FB stage, or
#                                   Resource Inspector on the resource NAME (its create info
#                                   opened at the usage flags)
#   SHOT_STAGE=ColorDepthOutput     the Pipeline State's stage (PixelShader: the FS page
#                                   with the input attachments; VertexInput, Rasterizer, ...)
#   SHOT_TEXTURE_VIEWER=1           leave the Texture Viewer open (it is closed by default:
#                                   on lavapipe it makes qrenderdoc 1.24 crash on any event
#                                   inside the command buffer)
#   SHOT_SIZE=1600x1000             screen and window size
#   SHOT_TIMEOUT=180                seconds for the whole run (loading replays on lavapipe)
#   SHOT_KEEP=DIR                   keep the run's files (config, logs, raw shots) in DIR
#
# Needs: qrenderdoc (RenderDoc 1.24: Debian qrenderdoc), Xvfb, xdotool, ImageMagick (import,
# compare). Never waits without a limit; exits non-zero when no screenshot was written.
set -u

usage() { echo "usage: $0 RDC OUT.png [EVENT-FILTER]" >&2; exit 2; }
[ $# -ge 2 ] && [ $# -le 3 ] || usage
rdc=$1
out=$2
filter=${3:-vkCmdBeginRenderPass}
view=${SHOT_VIEW:-renderpass}
size=${SHOT_SIZE:-1600x1000}
total=${SHOT_TIMEOUT:-180}
here=$(cd "$(dirname "$0")" && pwd)
py=$here/qrenderdoc_shot.py

work=
die() {
  echo "qrenderdoc-shot: $*" >&2
  if [ -n "$work" ] && [ -s "$work/shot.log" ]; then
    echo "qrenderdoc-shot: the script's log (SHOT_KEEP=DIR keeps all the files):" >&2
    grep -v '^action ' "$work/shot.log" | tail -20 | sed 's/^/  /' >&2
  fi
  exit 1
}
for tool in qrenderdoc Xvfb xdotool import compare timeout; do
  command -v "$tool" > /dev/null || die "$tool not found (apt-get install qrenderdoc xvfb xdotool imagemagick)"
done
[ -r "$rdc" ] || die "cannot read capture $rdc"
[ "$(head -c 4 "$rdc")" = RDOC ] || die "$rdc is not a RenderDoc capture (no RDOC header)"
[ -r "$py" ] || die "missing $py"
case $size in [0-9]*x[0-9]*) ;; *) die "SHOT_SIZE must be WxH, not $size" ;; esac
width=${size%x*}
height=${size#*x}
rdc=$(cd "$(dirname "$rdc")" && pwd)/$(basename "$rdc")
outdir=$(dirname "$out")
[ -d "$outdir" ] || die "no directory $outdir"
rm -f "$out"

if [ -n "${SHOT_KEEP:-}" ]; then
  work=$SHOT_KEEP
  rm -rf "$work" && mkdir -p "$work" || die "cannot make $work"
else
  work=$(mktemp -d /tmp/qrenderdoc-shot.XXXXXX) || die "mktemp failed"
fi
xpid=
qpid=
start=$(date +%s)
cleanup() {
  # Only the two processes started here, by their ids: qrenderdoc first, then its display.
  for pid in $qpid $xpid; do
    kill -TERM "$pid" 2> /dev/null || continue
    for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$pid" 2> /dev/null || break; sleep 0.3; done
    kill -KILL "$pid" 2> /dev/null
    wait "$pid" 2> /dev/null
  done
  [ -n "${SHOT_KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
left() { echo $((total - ($(date +%s) - start))); }

# A private qrenderdoc configuration: no analytics question, no update check, no tips, no
# comments panel, nothing from the user's own settings or layout (XDG_DATA_HOME is where Qt
# puts qrenderdoc's UI.config and DefaultLayout.config).
mkdir -p "$work/data/qrenderdoc"
cat > "$work/data/qrenderdoc/UI.config" << 'EOF'
{
    "Analytics_ManualCheck": false,
    "Analytics_TotalOptOut": true,
    "CheckUpdate_AllowChecks": false,
    "CrashReport_EmailNagged": true,
    "Comments_ShowOnLoad": false,
    "Tips_HasSeenFirst": true,
    "rdocConfigData": 1
}
EOF

# The display: Xvfb picks a free display number itself and writes it to fd 3.
: > "$work/display"
Xvfb -displayfd 3 -screen 0 "${width}x${height}x24" -nolisten tcp -noreset \
  3> "$work/display" > "$work/xvfb.log" 2>&1 &
xpid=$!
for _ in $(seq 100); do
  [ -s "$work/display" ] && break
  kill -0 "$xpid" 2> /dev/null || break
  sleep 0.1
done
num=$(head -1 "$work/display" | tr -dc 0-9)
[ -n "$num" ] || die "Xvfb did not start: $(tail -3 "$work/xvfb.log")"
export DISPLAY=:$num
unset WAYLAND_DISPLAY

SHOT_RDC=$rdc SHOT_READY=$work/ready SHOT_LOG=$work/shot.log SHOT_FILTER=$filter SHOT_VIEW=$view \
  XDG_DATA_HOME=$work/data QT_QPA_PLATFORM=xcb \
  timeout -k 5 "$(left)" qrenderdoc --ui-py "$py" > "$work/qrenderdoc.log" 2>&1 &
qpid=$!

# The main window has no window manager to size it: move it to 0,0 and make it fill the screen.
win=
while [ "$(left)" -gt 0 ] && kill -0 "$qpid" 2> /dev/null; do
  win=$(timeout 5 xdotool search --onlyvisible --name '^RenderDoc v' 2> /dev/null | head -1)
  [ -n "$win" ] && break
  sleep 0.3
done
[ -n "$win" ] || die "qrenderdoc opened no window: $(tail -5 "$work/qrenderdoc.log")"
timeout 5 xdotool windowmove "$win" 0 0 windowsize "$win" "$width" "$height" \
  || die "xdotool could not size the window"

# Wait for the Python side: "ok ..." once the capture is loaded and the panels are set.
while [ "$(left)" -gt 0 ] && kill -0 "$qpid" 2> /dev/null && ! [ -s "$work/ready" ]; do
  sleep 0.5
done
if ! [ -s "$work/ready" ]; then
  if kill -0 "$qpid" 2> /dev/null; then
    die "timed out after ${total}s waiting for the capture to load (log: $work/shot.log)"
  fi
  wait "$qpid"
  rc=$?
  die "qrenderdoc exited (status $rc) before it was ready; RenderDoc's log is the newest /tmp/RenderDoc/RenderDoc_*.log (status 139 with SHOT_TEXTURE_VIEWER=1 is the known lavapipe crash)"
fi
status=$(head -1 "$work/ready")
case $status in ok*) ;; *) die "$status" ;; esac

# Take shots until two in a row are the same (the panels have painted), at most 8.
prev=
for i in 1 2 3 4 5 6 7 8; do
  sleep 1
  [ "$(left)" -gt 0 ] || break
  kill -0 "$qpid" 2> /dev/null || die "qrenderdoc exited while painting (a crash in the replay?)"
  timeout 20 import -window root "$work/shot$i.png" 2> "$work/import.log" || continue
  if [ -n "$prev" ]; then
    diff=$(timeout 20 compare -metric AE "$prev" "$work/shot$i.png" null: 2>&1)
    if [ "$diff" = 0 ]; then
      break
    fi
  fi
  prev=$work/shot$i.png
done
last=$(ls -t "$work"/shot[0-9].png 2> /dev/null | head -1)
[ -n "$last" ] || [ "$(left)" -gt 0 ] || die "timed out after ${total}s before a screenshot was taken"
[ -n "$last" ] || die "no screenshot could be taken ($(cat "$work/import.log" 2> /dev/null))"
cp "$last" "$out" || die "cannot write $out"
[ -s "$out" ] || die "empty screenshot $out"
echo "qrenderdoc-shot: $out (${width}x${height}; $status)"
grep '^attachment ' "$work/shot.log" | sed 's/^/  /'
exit 0
