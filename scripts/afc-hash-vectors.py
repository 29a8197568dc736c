#!/usr/bin/env python3
"""Write tests/fixtures/afc/hash-vectors.json: AFC identity-hash vectors computed the way the producers do.

The producers hash a tap as

    identity = {k: payload.get(k) for k in ("event_id", "device_id", "tap_timestamp", "fare_amount_cents")}
    hashlib.sha256(json.dumps(identity, sort_keys=True, separators=(",", ":")).encode("utf-8")).hexdigest()

after `json.loads` of the raw tap text, with every other json default (ensure_ascii=True, allow_nan=True,
duplicate keys: last one wins). lib/afc/hash.ts must reproduce this byte for byte, so the expectations come
from CPython itself rather than from hand-written strings.

Run from the repo root:  python3 scripts/afc-hash-vectors.py
Inputs are raw JSON *text* (r-strings), so escapes like \\u00e9 reach json.loads exactly as written.
"""
import hashlib
import json
import pathlib
import random
import struct
import sys

IDENTITY_FIELDS = ("event_id", "device_id", "tap_timestamp", "fare_amount_cents")
OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "afc" / "hash-vectors.json"


def tap(fare: str, event_id: str = '"evt-1"', device_id: str = '"dev-1"', ts: str = '"2024-05-01T08:30:00Z"') -> str:
    """Raw tap text with the given JSON lexemes dropped in verbatim."""
    return (
        '{"event_id":' + event_id + ',"device_id":' + device_id
        + ',"fare_amount_cents":' + fare + ',"tap_timestamp":' + ts + "}"
    )


VECTORS: list[tuple[str, str]] = [
    # ordinary taps
    ("ordinary tap", tap("275")),
    ("ordinary tap, other values", tap("0", '"a1b2c3"', '"gate-07"', '"2023-12-31T23:59:59.999Z"')),
    ("ordinary tap, offset timestamp", tap("350", ts='"2024-05-01T10:30:00+02:00"')),
    ("ordinary tap, fractional seconds", tap("125", ts='"2024-05-01T08:30:00.123456-05:00"')),
    ("ordinary tap, uuid event id", tap("200", '"3f2b8c1e-9d4a-4e6b-8f7c-2a1d5e9b0c43"')),
    ("ordinary tap, key order differs", r'{"tap_timestamp":"2024-05-01T08:30:00Z","fare_amount_cents":275,"device_id":"dev-1","event_id":"evt-1"}'),
    ("ordinary tap, pretty printed", '{\n  "event_id" : "evt-1",\n\t"device_id": "dev-1" ,\r\n  "fare_amount_cents" : 275 ,\n  "tap_timestamp": "2024-05-01T08:30:00Z"\n}\n'),
    ("extra key ignored by the identity", r'{"event_id":"evt-1","device_id":"dev-1","fare_amount_cents":275,"tap_timestamp":"2024-05-01T08:30:00Z","battery_pct":87.5}'),
    ("many extra keys", r'{"zeta":1,"event_id":"e","alpha":[1,2],"device_id":"d","fare_amount_cents":1,"tap_timestamp":"t","__proto__":{"x":1}}'),
    # python float repr
    ("float integral 275.0", tap("275.0")),
    ("float 1e2", tap("1e2")),
    ("float 1E2 uppercase", tap("1E2")),
    ("float 1e+2 explicit sign", tap("1e+2")),
    ("float 0.00001 -> 1e-05", tap("0.00001")),
    ("float 0.0001 stays fixed", tap("0.0001")),
    ("float 123e-7 -> 1.23e-05", tap("123e-7")),
    ("float 2.5E-7", tap("2.5E-7")),
    ("float 1e16 -> 1e+16", tap("1e16")),
    ("float 1e15 stays fixed", tap("1e15")),
    ("float 9999999999999998.0", tap("9999999999999998.0")),
    ("float 12345678901234567.0 -> exponent", tap("12345678901234567.0")),
    ("float 1e22", tap("1e22")),
    ("float 1.5e300", tap("1.5e300")),
    ("float 1.7976931348623157e308 max", tap("1.7976931348623157e308")),
    ("float 5e-324 min subnormal", tap("5e-324")),
    ("float -0.0", tap("-0.0")),
    ("float -0e0", tap("-0e0")),
    ("float 0e0", tap("0e0")),
    ("float 1E400 overflows to Infinity", tap("1E400")),
    ("float -1E400 overflows to -Infinity", tap("-1E400")),
    ("float 1e-400 underflows to 0.0", tap("1e-400")),
    ("float -1e-400 underflows to -0.0", tap("-1e-400")),
    ("float 0.1", tap("0.1")),
    ("float 4.35", tap("4.35")),
    ("float 1.5", tap("1.5")),
    ("float -1.5", tap("-1.5")),
    ("float trailing zeros 123.4560", tap("123.4560")),
    ("float 100E-2 -> 1.0", tap("100E-2")),
    ("float 0.5e1 -> 5.0", tap("0.5e1")),
    ("float rounds 1.0000000000000001 -> 1.0", tap("1.0000000000000001")),
    ("float many digits 123456789.123456789", tap("123456789.123456789")),
    ("float above 2^53 9007199254740993.0", tap("9007199254740993.0")),
    ("float 0.1e-3", tap("0.1e-3")),
    ("float 1e-5 exponent form", tap("1e-5")),
    ("float 1e-4 exponent form", tap("1e-4")),
    ("float 1e100", tap("1e100")),
    # python ints
    ("int -0 -> 0", tap("-0")),
    ("int negative -5", tap("-5")),
    ("int above 2^53 9007199254740993", tap("9007199254740993")),
    ("int huge 12345678901234567890123", tap("12345678901234567890123")),
    ("int huge negative", tap("-12345678901234567890123")),
    ("int 64-bit event id as number", tap("275", event_id="1234567890123456789")),
    ("float event id", tap("275", event_id="1.5")),
    # other JSON types in identity fields
    ("fare as string", tap('"275"')),
    ("fare true", tap("true")),
    ("fare false", tap("false")),
    ("fare null", tap("null")),
    ("fare empty array", tap("[]")),
    ("fare empty object", tap("{}")),
    ("fare nested array", tap('[1, 2.0, "x", [null, true], -0, 1e2]')),
    ("fare nested object sorted", tap('{"b": 1, "a": [{"z": null, "y": 1e5}], "c": {"k": "v"}}')),
    ("timestamp as number", tap("275", ts="1714552200")),
    ("device id as array", tap("275", device_id='["dev", 1]')),
    ("event id empty string", tap("275", event_id='""')),
    ("event id whitespace", tap("275", event_id='"  \\t "')),
    # missing fields become null
    ("missing fare", r'{"event_id":"evt-1","device_id":"dev-1","tap_timestamp":"2024-05-01T08:30:00Z"}'),
    ("missing device id", r'{"event_id":"evt-1","fare_amount_cents":275,"tap_timestamp":"2024-05-01T08:30:00Z"}'),
    ("missing event id", r'{"device_id":"dev-1","fare_amount_cents":275,"tap_timestamp":"2024-05-01T08:30:00Z"}'),
    ("empty object", "{}"),
    ("only extra keys", r'{"battery_pct":12}'),
    # duplicate keys: python keeps the last value
    ("duplicate event id, last wins", r'{"event_id":"first","device_id":"dev-1","event_id":"second","fare_amount_cents":275,"tap_timestamp":"2024-05-01T08:30:00Z"}'),
    ("duplicate fare lexemes, last wins", r'{"event_id":"e","device_id":"d","fare_amount_cents":1,"tap_timestamp":"t","fare_amount_cents":1.0}'),
    ("duplicate key in nested object", tap('{"a": 1, "a": 2}')),
    # string escaping (ensure_ascii)
    ("non-ascii latin raw", tap("275", event_id='"café"')),
    ("non-ascii latin escaped", tap("275", event_id=r'"caf\u00e9"')),
    ("non-ascii latin escaped uppercase hex", tap("275", event_id=r'"caf\u00E9"')),
    ("cjk", tap("275", device_id='"乗車券-東京"')),
    ("astral emoji raw", tap("275", event_id='"🚇 metro"')),
    ("astral emoji escaped pair", tap("275", event_id=r'"\ud83d\ude87 metro"')),
    ("astral math letter", tap("275", device_id='"𝒜𝒷"')),
    ("lone high surrogate", tap("275", event_id=r'"\ud800"')),
    ("lone low surrogate", tap("275", event_id=r'"x\udc00y"')),
    ("quote and backslash", tap("275", event_id=r'"say \"hi\" C:\\path"')),
    ("short escapes", tap("275", event_id=r'"a\nb\rc\td\be\ff"')),
    ("control characters", tap("275", event_id=r'"\u0000\u0001\u001f\u007f"')),
    ("slash not escaped", tap("275", event_id=r'"a/b\/c"')),
    ("line and paragraph separators", tap("275", event_id='"\u2028\u2029"')),
    ("bom and nbsp", tap("275", event_id=r'"\ufeff\u00a0"')),
    ("tilde and space boundary", tap("275", event_id='" ~"')),
    # key sorting is by code point (python), not by UTF-16 code unit (javascript)
    ("nested keys astral vs BMP private use", tap(r'{"\uffff": 1, "😀": 2, "\ue000": 3, "a": 4}')),
    ("nested keys case and punctuation", tap('{"b": 1, "B": 2, "_": 3, "a": 4, "": 5}')),
    ("nested integer-like keys sort as strings", tap('{"10": 1, "9": 2, "a": 3, "1": 4}')),
    ("nested non-ascii keys", tap('{"é": 1, "e": 2, "z": 3, "乗": 4}')),
    ("nested __proto__ key", tap('{"__proto__": {"polluted": true}, "constructor": 1}')),
    ("deep nesting", tap('[[[[{"k": [[1.0]]}]]]]')),
    # json.loads' non-standard constants: Python's json.dumps writes a float nan/inf as these bare words
    # (allow_nan=True), so raw taps from Python producers can carry them
    ("python constant NaN fare", tap("NaN")),
    ("python constant Infinity fare", tap("Infinity")),
    ("python constant -Infinity fare", tap("-Infinity")),
    ("python constants nested", tap('[NaN, -Infinity, 1, {"x": Infinity}, "NaN"]')),
    ("python constant words inside strings stay strings", tap("1", event_id='"NaN"', device_id='"-Infinity"')),
]


def canonical(raw: str) -> str:
    payload = json.loads(raw)
    identity = {k: payload.get(k) for k in IDENTITY_FIELDS}
    return json.dumps(identity, sort_keys=True, separators=(",", ":"))


def float_lexemes(count: int = 400) -> list[dict[str, str]]:
    """Number lexemes json.loads reads as float, with json.dumps' rendering: pins float repr far beyond the
    hand-picked vectors. Seeded, so the fixture is reproducible."""
    rng = random.Random(20240501)
    out: list[dict[str, str]] = []
    while len(out) < count:
        kind = len(out) % 4
        if kind == 0:  # any finite double, from random bits
            x = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
            if x != x or x in (float("inf"), float("-inf")):
                continue
        elif kind == 1:  # around the repr switch points 1e-4 .. 1e16
            x = rng.uniform(1, 10) * 10.0 ** rng.randint(-7, 18)
        elif kind == 2:  # money-like values
            x = rng.randint(0, 10**7) / 100
        else:  # integral floats, including beyond 2^53
            x = float(rng.randint(0, 2**60)) * rng.choice((1, 10, 1000))
        for lexeme in (repr(x), "%.17g" % x, "%.3e" % x):
            if "." not in lexeme and "e" not in lexeme:
                lexeme += ".0"
            out.append({"lexeme": lexeme, "python": json.dumps(json.loads(lexeme))})
    return out[:count]


def main() -> None:
    names = [name for name, _ in VECTORS]
    if len(set(names)) != len(names):
        sys.exit("duplicate vector names")
    vectors = []
    for name, raw in VECTORS:
        text = canonical(raw)
        vectors.append({
            "name": name,
            "input": raw,
            "canonical": text,
            "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
        })
    doc = {
        "generated_by": "scripts/afc-hash-vectors.py",
        "python": sys.version.split()[0],
        "identity_fields": list(IDENTITY_FIELDS),
        "vectors": vectors,
        "float_lexemes": float_lexemes(),
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    # ensure_ascii keeps the fixture pure ASCII; lone surrogates in inputs survive as \\udXXX escapes.
    OUT.write_text(json.dumps(doc, indent=2, ensure_ascii=True) + "\n", encoding="ascii")
    print(f"wrote {len(vectors)} vectors to {OUT.relative_to(pathlib.Path.cwd()) if OUT.is_relative_to(pathlib.Path.cwd()) else OUT}")


if __name__ == "__main__":
    main()
