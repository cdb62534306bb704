"""What the GPU's clocks did during each suite of a device run.

    python3 bench/device/gpu_clocks.py gpu-clocks.csv suites.tsv

gpu-clocks.csv is nvidia-smi's --query-gpu=timestamp,clocks.sm,clocks.mem,
power.draw,temperature.gpu,utilization.gpu[,clocks_event_reasons.active]
--format=csv -lms 200 (bench/device/suites.sh starts it beside the suites);
suites.tsv has one line per suite: name, start and end (Unix seconds). Prints
one line per suite: SM clock (min / median / max MHz), memory clock, the
most power drawn, the hottest temperature, and the throttle reasons seen
(decoded from the bit mask), so a figure measured while the GPU clocked
down can be told from one that is slow by itself.
"""
import csv
import statistics
import sys
import time
from datetime import datetime

# nvmlClocksEventReasons bits (nvidia-smi -q -d PERFORMANCE names them)
REASONS = {0x1: "idle", 0x2: "app clocks", 0x4: "SW power cap", 0x8: "HW slowdown",
           0x10: "sync boost", 0x20: "SW thermal", 0x40: "HW thermal",
           0x80: "HW power brake", 0x100: "display clocks"}


def number(text):
    """The number in a field like ' 1980 MHz' or ' 310.53 W'; None for
    '[N/A]' and the like."""
    try:
        return float(text.strip().split()[0])
    except (ValueError, IndexError):
        return None


def reasons(mask):
    names = [name for bit, name in REASONS.items() if mask & bit]
    return ", ".join(names) if names else "none"


def load(path):
    """[(unix time, {field: text})] from nvidia-smi's CSV."""
    rows = []
    with open(path, newline="") as f:
        r = csv.reader(f)
        head = None
        for line in r:
            if not line:
                continue
            if head is None or line[0].strip() == "timestamp":
                head = [h.strip().split(" [")[0] for h in line]
                continue
            try:
                t = time.mktime(datetime.strptime(line[0].strip(),
                                                  "%Y/%m/%d %H:%M:%S.%f").timetuple())
                t += float("0." + line[0].strip().rsplit(".", 1)[1])
            except (ValueError, IndexError):
                continue
            rows.append((t, dict(zip(head, line))))
    return rows


def field(d, last):
    """The value of the column whose name ends in `last` (nvidia-smi names
    clocks.sm clocks.current.sm in its header)."""
    for k, v in d.items():
        if k == last or k.endswith("." + last) or k.endswith(last):
            return v
    return ""


def summary(rows, start, end):
    got = [d for t, d in rows if start <= t <= end]
    if not got:
        return None

    def nums(last):
        return [v for v in (number(field(d, last)) for d in got) if v is not None]
    sm, mem, pw, tc = nums("sm"), nums("memory") or nums("mem"), nums("power.draw"), \
        nums("temperature.gpu")
    mask = 0
    for d in got:
        v = field(d, "reasons.active").strip()
        if v.startswith("0x"):
            mask |= int(v, 16)
    out = f"{len(got):4d} samples"
    if sm:
        out += f"  SM {min(sm):.0f}/{statistics.median(sm):.0f}/{max(sm):.0f} MHz"
    if mem:
        out += f"  mem {min(mem):.0f}-{max(mem):.0f} MHz"
    if pw:
        out += f"  power max {max(pw):.0f} W"
    if tc:
        out += f"  temp max {max(tc):.0f} C"
    out += f"  reasons: {reasons(mask & ~0x1)}"
    return out


def main(argv):
    if len(argv) != 3:
        print(__doc__)
        return 2
    rows = load(argv[1])
    print(f"== GPU clocks during the suites ({len(rows)} samples; SM min/median/max)")
    with open(argv[2]) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 3 or parts[0] == "suite":
                continue
            try:
                start, end = float(parts[1]), float(parts[2])
            except ValueError:
                continue
            s = summary(rows, start, end)
            print(f"  {parts[0]:<10} {s or 'no samples'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
