#!/usr/bin/env python3
"""An independent reading of Zeek ssl logs for the zeek_*.sh tests (standard library only).

  zeek_ref.py count [--ranges FILE] LOG...   the Table III counts pqtls should print, as JSON
  zeek_ref.py tojson [--iso] LOG             the TSV log as Zeek's JSON writer would write it

Written from Zeek's documentation of its ASCII format, not from pqtls's C code: the header
sets the separators and the columns; '-' (or #unset_field) is unset; sets and vectors are
joined by #set_separator; \\xNN escapes bytes. Classification: the longest prefix of the
ranges file ("CIDR cdn|cloud" lines) decides; else special-purpose space is Unknown and the
rest Other.
"""
import datetime
import gzip
import ipaddress
import json
import re
import sys

SPECIAL = [ipaddress.ip_network(n) for n in (
    "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
    "192.168.0.0/16", "198.18.0.0/15", "224.0.0.0/3", "::/127", "::ffff:0:0/96", "fc00::/7",
    "fe80::/10", "ff00::/8", "2001:db8::/32")]
CATS = ["CDN", "Cloud", "Other", "Unknown"]


def unescape(s):
    return re.sub(rb"\\x([0-9a-fA-F]{2})", lambda m: bytes([int(m.group(1), 16)]), s)


def read_lines(path):
    with open(path, "rb") as f:
        gz = f.read(2) == b"\x1f\x8b"
    opener = gzip.open if gz else open
    with opener(path, "rb") as f:
        for raw in f:
            yield raw.rstrip(b"\n")


def header(line, h):
    """Applies a '#' line to the header state h; False for a data line."""
    if line.startswith(b"#separator "):
        h["sep"], h["fields"] = unescape(line[11:]), None  # a new header block
        return True
    if not line.startswith(b"#"):
        return False
    key, _, val = line.partition(h["sep"])
    names = {b"#set_separator": "setsep", b"#empty_field": "empty", b"#unset_field": "unset"}
    if key in names:
        h[names[key]] = unescape(val)
    elif key == b"#fields":
        h["fields"] = val.split(h["sep"])
    elif key == b"#types":
        h["types"] = val.split(h["sep"])
    return True


def new_header():
    return {"sep": b"\t", "setsep": b",", "empty": b"(empty)", "unset": b"-", "fields": None, "types": None}


def tsv_rows(path):
    """Yields dicts of decoded values (None when unset), or None for a skipped line."""
    h = new_header()
    for line in read_lines(path):
        if not line or header(line, h):
            continue
        sep, empty, unset, fields = h["sep"], h["empty"], h["unset"], h["fields"]
        parts = line.split(sep)
        if fields is None or b"id.resp_h" not in fields or len(parts) != len(fields):
            yield None
            continue
        row = {}
        for k, v in zip(fields, parts):
            row[k.decode()] = None if v == unset else ("" if v == empty else v)
        yield row


def json_rows(path):
    for line in read_lines(path):
        if not line:
            continue
        try:
            o = json.loads(line)
        except ValueError:
            yield None
            continue
        row = {}
        for k, v in o.items():
            if isinstance(v, bool):
                v = b"T" if v else b"F"
            elif isinstance(v, str):
                v = v.encode()
            row[k] = v
        yield row


def rows(path):
    with open(path, "rb") as f:
        head = f.read(2)
    if head[:2] == b"\x1f\x8b":
        with gzip.open(path, "rb") as f:
            head = f.read(1)
    return json_rows(path) if head[:1] == b"{" else tsv_rows(path)


def load_ranges(path):
    nets = []
    for line in open(path):
        line = line.split("#")[0].split()
        if line:
            nets.append((ipaddress.ip_network(line[0], strict=False), line[1].lower()))
    return nets


def classify(addr, nets):
    best = None
    for net, cat in nets:
        if addr.version == net.version and addr in net and (best is None or net.prefixlen > best[0].prefixlen):
            best = (net, cat)
    if best:
        return "CDN" if best[1] == "cdn" else "Cloud"
    if any(addr.version == n.version and addr in n for n in SPECIAL):
        return "Unknown"
    return "Other"


def count(args):
    nets = []
    if args[0] == "--ranges":
        nets, args = load_ranges(args[1]), args[2:]
    zero = lambda: {"rows": 0, "version_unset": 0, "resumed_unknown": 0, "tls13": [0, 0],
                    "all": [0, 0], "t13": [0, 0], "est": [0, 0]}
    out = {c: zero() for c in CATS + ["All"]}
    skipped = total = 0
    names, groups = {}, {}
    for path in args:
        for r in rows(path):
            if r is None:
                skipped += 1
                continue
            try:
                ip = unescape(r.get("id.resp_h") or b"").decode()
                addr = ipaddress.ip_address(ip)
            except ValueError:
                skipped += 1
                continue
            total += 1
            version = unescape(r.get("version") or b"")
            resumed, est = r.get("resumed"), r.get("established")
            sn, curve = r.get("server_name"), r.get("curve")
            if sn:
                names[unescape(sn).decode("utf-8", "replace")] = names.get(unescape(sn).decode("utf-8", "replace"), 0) + 1
            if curve:
                groups[unescape(curve).decode()] = groups.get(unescape(curve).decode(), 0) + 1
            for c in (classify(addr, nets), "All"):
                o = out[c]
                o["rows"] += 1
                if not version:
                    o["version_unset"] += 1
                    continue
                o["tls13"][1] += 1
                o["tls13"][0] += version == b"TLSv13"
                if resumed not in (b"T", b"F"):
                    o["resumed_unknown"] += 1
                    continue
                yes = resumed == b"T"
                for key, cond in (("all", True), ("t13", version == b"TLSv13"), ("est", est == b"T")):
                    if cond:
                        o[key][1] += 1
                        o[key][0] += yes
    json.dump({"rows": total, "skipped": skipped, "categories": out, "server_names": names, "groups": groups},
              sys.stdout, sort_keys=True)
    print()


def tojson(args):
    iso = args[0] == "--iso"
    path = args[-1]
    h = new_header()
    outb = sys.stdout.buffer
    for line in read_lines(path):
        if header(line, h):
            continue
        sep, setsep, empty, unset, fields, types = (h[k] for k in ("sep", "setsep", "empty", "unset", "fields", "types"))
        if not line or fields is None:
            continue
        obj = {}
        for k, t, v in zip(fields, types, line.split(sep)):
            k, t = k.decode(), t.decode()
            if v == unset:
                continue  # Zeek's JSON omits unset fields
            if t.startswith(("set[", "vector[")):
                obj[k] = [] if v == empty else [unescape(x).decode("utf-8", "surrogateescape") for x in v.split(setsep)]
            elif t == "bool":
                obj[k] = v == b"T"
            elif t in ("count", "int", "port"):
                obj[k] = int(v)
            elif t == "time":
                try:
                    secs = float(v)
                    obj[k] = (datetime.datetime.fromtimestamp(secs, datetime.timezone.utc)
                              .strftime("%Y-%m-%dT%H:%M:%S.%fZ") if iso else secs)
                except ValueError:
                    obj[k] = v.decode()
            else:
                obj[k] = "" if v == empty else unescape(v).decode("utf-8", "surrogateescape")
        outb.write(json.dumps(obj, ensure_ascii=False).encode("utf-8", "surrogateescape") + b"\n")


if __name__ == "__main__":
    {"count": count, "tojson": tojson}[sys.argv[1]](sys.argv[2:])
