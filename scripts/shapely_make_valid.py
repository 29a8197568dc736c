#!/usr/bin/python3
"""Native GEOS reference for lib/spatial: validity, explain_validity and make_valid through shapely.

Run with Debian's interpreter (/usr/bin/python3 + apt python3-shapely); the pyenv python3 on PATH has no shapely.

    /usr/bin/python3 scripts/shapely_make_valid.py [FILE]          # one JSON result per input line
    /usr/bin/python3 scripts/shapely_make_valid.py --bench FILE     # timings of the same work, as JSON
    /usr/bin/python3 scripts/shapely_make_valid.py --versions

Input lines: a GeoJSON geometry, a Feature, or a corpus record {"name": ..., "geometry": ...}.

Bookworm ships shapely 1.8 (GEOS 3.11), whose make_valid only does the "linework" method. GEOS >= 3.10 has
GEOSMakeValidWithParams ("structure", JTS GeometryFixer) in its C API, so that one is called through ctypes on
the same libgeos_c that shapely loaded, with keepCollapsed = 0 as lib/spatial uses.
"""
import ctypes
import json
import math
import sys
import time

try:
    import shapely
    from shapely.geometry import shape
    from shapely.geometry.base import geom_factory
    from shapely.geos import geos_version, lgeos
    from shapely.validation import explain_validity, make_valid
except ImportError as error:  # the vitest comparison turns this exit code into a failing test
    sys.stderr.write(f"shapely is not importable ({error}); install python3-shapely and run with /usr/bin/python3\n")
    sys.exit(3)

_lib = lgeos._lgeos
_handle = ctypes.c_void_p(lgeos.geos_handle)
STRUCTURE_AVAILABLE = hasattr(_lib, "GEOSMakeValidWithParams_r")
if STRUCTURE_AVAILABLE:
    _lib.GEOSMakeValidParams_create_r.restype = ctypes.c_void_p
    _lib.GEOSMakeValidParams_create_r.argtypes = [ctypes.c_void_p]
    _lib.GEOSMakeValidParams_setMethod_r.restype = ctypes.c_int
    _lib.GEOSMakeValidParams_setMethod_r.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
    _lib.GEOSMakeValidParams_setKeepCollapsed_r.restype = ctypes.c_int
    _lib.GEOSMakeValidParams_setKeepCollapsed_r.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
    _lib.GEOSMakeValidWithParams_r.restype = ctypes.c_void_p
    _lib.GEOSMakeValidWithParams_r.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    _lib.GEOSGeom_destroy_r.restype = None
    _lib.GEOSGeom_destroy_r.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    _structure_params = _lib.GEOSMakeValidParams_create_r(_handle)
    _lib.GEOSMakeValidParams_setMethod_r(_handle, _structure_params, 1)
    _lib.GEOSMakeValidParams_setKeepCollapsed_r(_handle, _structure_params, 0)


def structure_ptr(geom):
    """Raw GEOS pointer of the structure-method repair (caller owns it), or None on failure."""
    ptr = _lib.GEOSMakeValidWithParams_r(_handle, ctypes.c_void_p(geom._geom), _structure_params)
    return ptr or None


def geometry_of(value):
    if isinstance(value, dict) and "geometry" in value and value.get("type") != "GeometryCollection":
        return value["geometry"]
    return value


def finite(value):
    """JSON has no Infinity/NaN (areas of geometries with 1e999 coordinates); null instead."""
    return value if math.isfinite(value) else None


def summary(geom):
    return {
        "type": geom.geom_type,
        "area": finite(geom.area),
        "valid": bool(geom.is_valid),
        "empty": bool(geom.is_empty),
        "wkt": geom.wkt if len(geom.wkt) < 2000 else None,
    }


def report(line):
    try:
        geom = shape(geometry_of(json.loads(line)))
        valid = bool(geom.is_valid)
        reason = explain_validity(geom)
    except Exception as error:  # shapely refuses what GEOS cannot construct (rings < 4 points, bad nesting)
        return {"ok": False, "error": f"{type(error).__name__}: {error}"}
    out = {"ok": True, "valid": valid, "reason": reason, "type": geom.geom_type, "area": finite(geom.area)}
    try:
        out["linework"] = summary(make_valid(geom))
    except Exception as error:
        out["linework"] = {"error": f"{type(error).__name__}: {error}"}
    if STRUCTURE_AVAILABLE:
        ptr = structure_ptr(geom)
        out["structure"] = summary(geom_factory(ptr)) if ptr else {"error": "GEOSMakeValidWithParams returned NULL"}
    return out


def bench(path, repeat):
    """Times the same phases as scripts/bench-repair.ts on the same file, excluding interpreter start-up.

    Each phase reports the best of `repeat` rounds, as wall time and as process CPU time (the machine may be
    shared; CPU time is what the comparison with the wasm side should rest on).
    """
    with open(path, encoding="utf-8") as handle:
        lines = [line for line in handle if line.strip()]
    t0 = time.perf_counter()
    geoms = [shape(geometry_of(json.loads(line))) for line in lines]
    parse_s = time.perf_counter() - t0
    is_valid = lgeos.GEOSisValid
    invalid = [g for g in geoms if not is_valid(g._geom)]
    destroy = _lib.GEOSGeom_destroy_r

    def validate():
        for g in geoms:
            explain_validity(g)

    def linework():
        for g in invalid:
            destroy(_handle, ctypes.c_void_p(lgeos.GEOSMakeValid(g._geom)))

    def structure():
        for g in invalid:
            ptr = structure_ptr(g)
            if ptr:
                destroy(_handle, ctypes.c_void_p(ptr))

    def best(fn):
        wall, cpu = [], []
        for _ in range(repeat):
            w0, c0 = time.perf_counter(), time.process_time()
            fn()
            wall.append(time.perf_counter() - w0)
            cpu.append(time.process_time() - c0)
        return {"wall_s": min(wall), "cpu_s": min(cpu)}

    return {
        "geometries": len(geoms),
        "invalid": len(invalid),
        "parse_s": parse_s,
        "validate": best(validate),
        "linework": best(linework),
        "structure": best(structure) if STRUCTURE_AVAILABLE else None,
        "versions": versions(),
    }


def versions():
    return {
        "shapely": shapely.__version__,
        "geos": ".".join(str(v) for v in geos_version),
        "structure_method": STRUCTURE_AVAILABLE,
        "python": sys.version.split()[0],
    }


def main(argv):
    if "--versions" in argv:
        print(json.dumps(versions()))
        return 0
    if "--bench" in argv:
        args = [a for a in argv if not a.startswith("--")]
        repeat = next((int(a.split("=", 1)[1]) for a in argv if a.startswith("--repeat=")), 3)
        print(json.dumps(bench(args[0], repeat)))
        return 0
    source = open(argv[0], encoding="utf-8") if argv else sys.stdin
    with source:
        for line in source:
            if line.strip():
                print(json.dumps(report(line)), flush=False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
