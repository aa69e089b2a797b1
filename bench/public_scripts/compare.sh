#!/bin/bash
HERE=$(cd "$(dirname "$0")" && pwd); REPO=$(cd "$HERE/../.." && pwd)
SCRIPTS=${PORT_SCRIPTS:?set PORT_SCRIPTS to a checkout of pytorch/examples}
# compare.sh NAME SCRIPT args...
name=$1; shift; script=$1; shift
W=${PORT_WORK:-/tmp/port_work}/$name; rm -rf $W; mkdir -p $W
cd $W; s=${name%%_*}; [ -f "$HERE/setup/$s.sh" ] && bash "$HERE/setup/$s.sh" > setup.log 2>&1
cd "$HERE"
timeout 600 python run_port.py torch "$SCRIPTS/$script" $W "$@" > $W/torch.log 2>&1
PYTHONPATH="$REPO" timeout 600 python run_port.py minigrad "$SCRIPTS/$script" $W "$@" > $W/minigrad.log 2>&1
python - $W <<'PY'
import json, sys
W = sys.argv[1]
t = json.load(open(W + "/torch.json")); m = json.load(open(W + "/minigrad.json"))
lt, lm = t["losses"], m["losses"]
n = min(len(lt), len(lm))
d = max([abs(a - b) for a, b in zip(lt, lm)] or [float("nan")])
r = max([abs(a - b) / max(abs(a), 1e-30) for a, b in zip(lt, lm)] or [float("nan")])
print(f"steps torch={len(lt)} minigrad={len(lm)} maxabs={d:.3g} maxrel={r:.3g} same_init={m['same_init']} err_t={t['error']} err_m={m['error']}")
print("first:", lt[:3], lm[:3])
PY
grep -v '^\[port\]' $W/minigrad.log > $W/m.txt; diff $W/torch.log $W/m.txt > $W/diff.txt && echo "logs identical" || (echo "log diff:"; head -20 $W/diff.txt)
