"""Slims a Taichi wheel in place for the device carry (bench/device/prep.sh).

    python3 bench/device/slim_wheel.py taichi-1.7.4-cp312-....whl

Drops what `import taichi` on the Vulkan backend never loads: the C API
library and its headers (taichi/_lib/c_api/), the wheel's data files
(CMake configs, headers: taichi-*.data/) and the examples; removes their
lines from the wheel's RECORD, so pip installs the rest as usual. A wheel
already slim is left as it is (a marker file in the dist-info says so).
"""
import re
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path

DROP = re.compile(r"^(taichi/_lib/c_api/|taichi-[^/]+\.data/|taichi/examples/)")
MARK = "VULPY_SLIM"


def slim(path):
    path = Path(path)
    with zipfile.ZipFile(path) as zi:
        names = zi.namelist()
        if any(n.endswith(".dist-info/" + MARK) for n in names):
            print(f"{path.name}: already slim ({path.stat().st_size >> 20} MiB)")
            return
        dist = next(n.split("/")[0] for n in names if ".dist-info/" in n)
        with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".tmp", delete=False) as t:
            tmp = Path(t.name)
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zo:
            for info in zi.infolist():
                if DROP.match(info.filename):
                    continue
                data = zi.read(info)
                if info.filename.endswith(".dist-info/RECORD"):
                    data = b"".join(ln for ln in data.splitlines(True)
                                    if not DROP.match(ln.decode("utf-8", "replace")))
                    data += f"{dist}/{MARK},,\n".encode()
                zo.writestr(info, data, compress_type=zipfile.ZIP_DEFLATED, compresslevel=9)
            zo.writestr(f"{dist}/{MARK}", "C API, data files and examples left out for the "
                                          "device carry (bench/device/slim_wheel.py)\n")
    before = path.stat().st_size
    shutil.move(tmp, path)
    print(f"{path.name}: {before >> 20} -> {path.stat().st_size >> 20} MiB")


if __name__ == "__main__":
    for p in sys.argv[1:]:
        slim(p)
