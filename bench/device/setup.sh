# Sourced by bench/device/pytest.sh and probes.sh on the device machine:
# the carried Vulkan loader and glvnd libraries (.gl), the driver's ICD
# file, the carried wheel (.whl) installed into $SITE, and the source tree's
# bindings/python/vulpy moved aside while the caller runs (so that the
# wheel's package is the one imported). Expects PY and SITE set; exports
# PYTHONPATH and XDG_CACHE_HOME ($CACHE).
if ! ldconfig -p 2>/dev/null | grep -q 'libvulkan.so.1 ' || ! ldconfig -p 2>/dev/null | grep -q 'libGLdispatch.so.0 '; then
  for f in .gl/*.deb; do dpkg -x "$f" / > /dev/null 2>&1; done
  ldconfig
fi
# the loader may find no driver by itself on a fresh machine (suites.sh does the same)
if [ -z "${VK_DRIVER_FILES:-}" ] && [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
rm -rf "$SITE"
$PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$SITE" .whl/*.whl \
  || { echo "pip install of .whl failed"; exit 2; }
# the wheel's package stands in the source tree's place too, so that tests
# which start a child with PYTHONPATH=<repo>/bindings/python import it
moved=0
if [ -d bindings/python/vulpy ] && ! ls bindings/python/vulpy/_vulpy*.so > /dev/null 2>&1; then
  mv bindings/python/vulpy bindings/python/vulpy.source && moved=1
  extra=$(cd "$SITE" && ls -d vulpy.libs 2> /dev/null)   # the wheel's vendored libraries
  cp -r "$SITE/vulpy" bindings/python/vulpy
  [ -n "$extra" ] && cp -r "$SITE/$extra" bindings/python/
fi
# (absolute paths: the caller may end in another folder, e.g. test/python,
# and a warm machine keeps the tree for the next call)
_vp_tree=$(pwd)/bindings/python
trap '[ $moved = 1 ] && rm -rf "$_vp_tree/vulpy" "$_vp_tree/vulpy.libs" && mv "$_vp_tree/vulpy.source" "$_vp_tree/vulpy"' EXIT
export PYTHONPATH=$SITE XDG_CACHE_HOME=$CACHE
