"""Lists the Vulkan device extensions, and the cooperative-matrix shapes the
driver offers (VK_KHR_cooperative_matrix; VK_NV_cooperative_matrix2's flexible
dimensions when present), through ctypes on the loader alone: no VulPy needed.

    VK_DRIVER_FILES=... python bench/probes/vk_extensions.py [--all]
"""
import ctypes as C
import sys

vk = C.CDLL("libvulkan.so.1")
u32, u64, ptr = C.c_uint32, C.c_uint64, C.c_void_p


class AppInfo(C.Structure):
    _fields_ = [("sType", u32), ("pNext", ptr), ("pApplicationName", C.c_char_p),
                ("applicationVersion", u32), ("pEngineName", C.c_char_p),
                ("engineVersion", u32), ("apiVersion", u32)]


class InstInfo(C.Structure):
    _fields_ = [("sType", u32), ("pNext", ptr), ("flags", u32), ("pApplicationInfo", C.POINTER(AppInfo)),
                ("enabledLayerCount", u32), ("ppEnabledLayerNames", ptr),
                ("enabledExtensionCount", u32), ("ppEnabledExtensionNames", ptr)]


class ExtProp(C.Structure):
    _fields_ = [("extensionName", C.c_char * 256), ("specVersion", u32)]


class CoopProp(C.Structure):  # VkCooperativeMatrixPropertiesKHR
    _fields_ = [("sType", u32), ("pNext", ptr), ("MSize", u32), ("NSize", u32), ("KSize", u32),
                ("AType", u32), ("BType", u32), ("CType", u32), ("ResultType", u32),
                ("saturatingAccumulation", u32), ("scope", u32)]


class CoopFlexProp(C.Structure):  # VkCooperativeMatrixFlexibleDimensionsPropertiesNV
    _fields_ = [("sType", u32), ("pNext", ptr), ("MGranularity", u32), ("NGranularity", u32),
                ("KGranularity", u32), ("AType", u32), ("BType", u32), ("CType", u32),
                ("ResultType", u32), ("saturatingAccumulation", u32), ("scope", u32),
                ("workgroupInvocations", u32)]


COMPONENT = {0: "f16", 1: "f32", 2: "f64", 3: "s8", 4: "s16", 5: "s32", 6: "s64",
             7: "u8", 8: "u16", 9: "u32", 10: "u64", 1000141000: "bf16",
             1000491002: "e4m3", 1000491003: "e5m2"}
SCOPE = {1: "device", 2: "workgroup", 3: "subgroup", 5: "queuefamily"}

app = AppInfo(0, None, b"probe", 1, b"probe", 1, (1 << 22) | (3 << 12))
info = InstInfo(1, None, 0, C.pointer(app), 0, None, 0, None)
inst = ptr()
r = vk.vkCreateInstance(C.byref(info), None, C.byref(inst))
if r != 0:
    sys.exit(f"vkCreateInstance: {r}")
n = u32()
vk.vkEnumeratePhysicalDevices(inst, C.byref(n), None)
devs = (ptr * n.value)()
vk.vkEnumeratePhysicalDevices(inst, C.byref(n), devs)
vk.vkGetInstanceProcAddr.restype = ptr
for d in devs:
    props = (C.c_ubyte * 1024)()
    vk.vkGetPhysicalDeviceProperties(ptr(d), props)
    name = bytes(props[20:276]).split(b"\0")[0].decode()
    api = int.from_bytes(bytes(props[0:4]), "little")
    drv = int.from_bytes(bytes(props[4:8]), "little")
    print(f"device: {name}  api {api >> 22}.{(api >> 12) & 1023}.{api & 4095}  driver 0x{drv:x}")
    m = u32()
    vk.vkEnumerateDeviceExtensionProperties(ptr(d), None, C.byref(m), None)
    exts = (ExtProp * m.value)()
    vk.vkEnumerateDeviceExtensionProperties(ptr(d), None, C.byref(m), exts)
    names = sorted(e.extensionName.decode() for e in exts)
    interesting = [x for x in names if any(k in x for k in (
        "cooperative", "shader_sm", "subgroup", "float16", "bfloat", "8bit", "16bit",
        "integer_dot", "memory_model", "maintenance", "external_memory", "shader_atomic",
        "fp8", "replicated", "pipeline_executable", "shader_clock", "relaxed"))]
    print(f"  {len(names)} extensions; selected:")
    for x in (names if "--all" in sys.argv else interesting):
        print("   ", x)
    for fn, st, cls in (("vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR", 1000506001, CoopProp),
                        ("vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV", 1000593001, CoopFlexProp)):
        a = vk.vkGetInstanceProcAddr(inst, fn.encode())
        if not a:
            print(f"  {fn}: absent")
            continue
        f = C.CFUNCTYPE(C.c_int32, ptr, C.POINTER(u32), ptr)(a)
        k = u32()
        f(ptr(d), C.byref(k), None)
        arr = (cls * k.value)()
        for i in range(k.value):
            arr[i].sType = st
        f(ptr(d), C.byref(k), arr)
        print(f"  {fn}: {k.value}")
        for p in arr:
            t = lambda v: COMPONENT.get(v, str(v))
            if cls is CoopProp:
                print(f"    {p.MSize}x{p.NSize}x{p.KSize} A={t(p.AType)} B={t(p.BType)} C={t(p.CType)} "
                      f"R={t(p.ResultType)} scope={SCOPE.get(p.scope, p.scope)}")
            else:
                print(f"    gran {p.MGranularity}x{p.NGranularity}x{p.KGranularity} A={t(p.AType)} "
                      f"B={t(p.BType)} C={t(p.CType)} R={t(p.ResultType)} scope={SCOPE.get(p.scope, p.scope)} "
                      f"wg={p.workgroupInvocations}")
