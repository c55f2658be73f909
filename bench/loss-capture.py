#!/usr/bin/env python3
"""Reads bench/loss-capture.sh's two captures (client's and server's namespace) and the
client's CSV: per connection, what each side sent, what the link lost, how each loss was
recovered, the endpoints' own delays and what the handshake took; then the connections by
the first thing lost. Times in ms from the connection's first SYN.
  python3 bench/loss-capture.py --rtt 78.6ms --loss 15% c.pcapng s.pcapng conn.csv"""
import argparse
import collections
import csv
import statistics
import subprocess
import sys

CLIENT = "10.77.0.1"
FIELDS = ["frame.time_epoch", "ip.src", "tcp.srcport", "tcp.dstport", "tcp.seq", "tcp.ack", "tcp.len",
          "tcp.flags", "tcp.options.timestamp.tsval", "tcp.options.timestamp.tsecr"]


def duration_ms(s):
    s = s.strip()
    for suf, k in (("ms", 1.0), ("us", 1e-3), ("s", 1e3)):
        if s.endswith(suf):
            return float(s[: -len(suf)]) * k
    return float(s)


def read(path):
    cmd = ["tshark", "-r", path, "-o", "tcp.relative_sequence_numbers:FALSE", "-T", "fields",
           "-E", "separator=,", "-Y", "tcp"]
    for f in FIELDS:
        cmd += ["-e", f]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    pkts = []
    for line in out.splitlines():
        v = line.split(",")
        if len(v) < len(FIELDS):
            continue
        pkts.append({"t": float(v[0]) * 1e3, "src": v[1], "sport": int(v[2]), "dport": int(v[3]),
                     "seq": int(v[4]), "ack": int(v[5] or 0), "len": int(v[6]), "flags": int(v[7], 16),
                     "tsval": v[8], "tsecr": v[9]})
    return pkts


def key(p):
    return (p["src"], p["sport"], p["dport"], p["seq"], p["ack"], p["len"], p["flags"], p["tsval"], p["tsecr"])


def mark_delivered(sent, received):
    """Each packet a side sent is delivered when the other side received one like it (the
    same header fields and timestamps); identical packets are matched in order."""
    have = collections.Counter(key(p) for p in received)
    for p in sent:
        k = key(p)
        p["lost"] = have[k] == 0
        if have[k]:
            have[k] -= 1


def kind(p):
    f = p["flags"]
    if f & 0x02 and f & 0x10:
        return "SYN-ACK"
    if f & 0x02:
        return "SYN"
    if f & 0x01:
        return "FIN"
    if f & 0x04:
        return "RST"
    return "data" if p["len"] else "ACK"


def analyse(conn, R):
    """conn: the connection's packets, each as its sender sent it (lost or not), with the
    time it was received where it was (rx)."""
    c_out = [p for p in conn if p["src"] == CLIENT]
    s_out = [p for p in conn if p["src"] != CLIENT]
    t0 = min(p["t"] for p in c_out)
    r = {"t0": t0}
    syn = [p for p in c_out if kind(p) == "SYN"]
    sa = [p for p in s_out if kind(p) == "SYN-ACK"]
    r["syn"] = (len(syn), sum(p["lost"] for p in syn), [round(p["t"] - t0) for p in syn])
    r["synack"] = (len(sa), sum(p["lost"] for p in sa), [round(p["t"] - t0) for p in sa])
    cdata = [p for p in c_out if p["len"]]
    sdata = [p for p in s_out if p["len"]]
    # The ClientHello: the client's data before anything of the server's arrived at the
    # client; the server's flight: its data sent before the client's second flight (the
    # Finished) reached it.
    ch_end = 0
    first_c = cdata[0]["t"] if cdata else None
    for p in cdata:
        if p["t"] - first_c < 5 or p["seq"] < ch_end:
            ch_end = max(ch_end, p["seq"] + p["len"])
    fin = [p for p in cdata if p["seq"] >= ch_end]
    fin_rx = min((p["rx"] for p in fin if not p["lost"]), default=float("inf"))
    # the flight ends where the client's Finished acknowledges (its ack field)
    fl_end = fin[0]["ack"] if fin else max((p["seq"] + p["len"] for p in sdata), default=0)
    r["fl_segs"] = sorted({p["seq"] for p in sdata if p["seq"] < fl_end})
    r["ch_segs"] = sorted({p["seq"] for p in cdata if p["seq"] < ch_end})
    # Every copy of a segment of the ClientHello and of the flight: its time, lost or not,
    # and how long after the previous copy it went (a retransmission's timer).
    def copies(data, end, segs):
        out, prev = [], {}
        for p in data:
            if p["seq"] >= end:
                continue
            gap = p["t"] - prev[p["seq"]] if p["seq"] in prev else None
            prev[p["seq"]] = p["t"]
            out.append((round(p["t"] - t0), segs.index(p["seq"]), p["lost"], None if gap is None else round(gap)))
        return out
    r["ch"] = copies(cdata, ch_end, r["ch_segs"])
    r["fl"] = copies(sdata, fl_end, r["fl_segs"])
    # The last byte of the flight at the client, and the client's Finished leaving.
    fl_rx = max((p["rx"] for p in sdata if p["seq"] < fl_end and not p["lost"]), default=None)
    done = None
    got = set()
    for p in sorted((p for p in sdata if p["seq"] < fl_end and not p["lost"]), key=lambda p: p["rx"]):
        got.add(p["seq"])
        if got >= set(r["fl_segs"]):
            done = p["rx"]
            break
    r["hs_cap"] = None if done is None else done - t0
    r["fin_tx"] = None if not fin else fin[0]["t"] - t0
    # The endpoints' own delays, which no link or TCP timer makes: the client writing its
    # ClientHello after the SYN-ACK it took arrived, the server answering after the
    # ClientHello arrived, and the client reporting the handshake after the flight's last
    # byte arrived (filled in by the caller from its record).
    sa_rx = min((p["rx"] for p in sa if not p["lost"]), default=None)
    ch_rx = min((p["rx"] for p in cdata if p["seq"] < ch_end and not p["lost"]), default=None)
    fl_first = min((p["t"] for p in sdata if p["seq"] < fl_end), default=None)
    r["lag_ch"] = max(0.0, first_c - sa_rx) if first_c is not None and sa_rx is not None else 0.0
    r["lag_srv"] = max(0.0, fl_first - ch_rx) if fl_first is not None and ch_rx is not None else 0.0
    acks_c = [p for p in c_out if kind(p) == "ACK" and p["t"] < (done or 1e30)]
    acks_s = [p for p in s_out if kind(p) == "ACK" and p["t"] < (done or 1e30)]
    r["acks_c"] = (len(acks_c), sum(p["lost"] for p in acks_c))
    r["acks_s"] = (len(acks_s), sum(p["lost"] for p in acks_s))
    # Which timer sent each retransmission of the flight: the server's last event before it
    # (an ACK's arrival: RACK; nothing since the last send: the probe or the RTO).
    s_rx = sorted(p["rx"] for p in c_out if not p["lost"])
    why = []
    last_tx = {}
    for p in sdata:
        if p["seq"] >= fl_end:
            continue
        if p["seq"] in last_tx:
            before = [t for t in s_rx if t <= p["t"] + 0.5]
            since_ack = p["t"] - before[-1] if before else None
            since_tx = p["t"] - max(v for v in last_tx.values())
            why.append((round(p["t"] - t0), r["fl_segs"].index(p["seq"]), round(since_ack or -1),
                        round(since_tx)))
        last_tx[p["seq"]] = p["t"]
    r["fl_retx"] = why
    r["fin_rx"] = fin_rx - t0
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rtt", required=True)
    ap.add_argument("--loss", required=True)
    ap.add_argument("client_pcap")
    ap.add_argument("server_pcap")
    ap.add_argument("csv")
    a = ap.parse_args()
    R = duration_ms(a.rtt)
    cp, sp = read(a.client_pcap), read(a.server_pcap)
    c_sent = [p for p in cp if p["src"] == CLIENT]
    s_sent = [p for p in sp if p["src"] != CLIENT]
    mark_delivered(c_sent, [p for p in sp if p["src"] == CLIENT])
    mark_delivered(s_sent, [p for p in cp if p["src"] != CLIENT])
    # when each delivered packet arrived
    arr = collections.defaultdict(list)
    for p in sp:
        if p["src"] == CLIENT:
            arr[key(p)].append(p["t"])
    for p in cp:
        if p["src"] != CLIENT:
            arr[key(p)].append(p["t"])
    for p in c_sent + s_sent:
        p["rx"] = arr[key(p)].pop(0) if not p["lost"] else None
    by_port = collections.OrderedDict()
    for p in sorted(c_sent + s_sent, key=lambda p: p["t"]):
        port = p["sport"] if p["src"] == CLIENT else p["dport"]
        by_port.setdefault(port, []).append(p)
    rows = list(csv.DictReader(open(a.csv)))
    hs_col = next((c for c in rows[0] if c.startswith("handshake")), None) if rows else None
    lost_c = sum(p["lost"] for p in c_sent)
    lost_s = sum(p["lost"] for p in s_sent)
    print(f"capture: {len(by_port)} connections; client sent {len(c_sent)} packets, {lost_c} lost "
          f"({100 * lost_c / max(1, len(c_sent)):.1f} %); server sent {len(s_sent)}, {lost_s} lost "
          f"({100 * lost_s / max(1, len(s_sent)):.1f} %); loss set {a.loss} each way, RTT {R} ms")
    # Whether the link's losses are independent: each direction's loss after a lost packet
    # and after a kept one, and by kind of packet.
    for name, v in (("c->s", c_sent), ("s->c", s_sent)):
        lost = [p["lost"] for p in sorted(v, key=lambda p: p["t"])]
        after = [[lost[i] for i in range(1, len(lost)) if lost[i - 1] == was] for was in (True, False)]
        kinds = collections.defaultdict(list)
        for p in v:
            kinds[kind(p)].append(p["lost"])
        print(f"  {name}: lost after a lost packet {sum(after[0])} of {len(after[0])}, after a kept one "
              f"{sum(after[1])} of {len(after[1])}; by kind: " +
              ", ".join(f"{k} {sum(x)}/{len(x)}" for k, x in sorted(kinds.items())))
    res = []
    for i, (port, conn) in enumerate(by_port.items()):
        if not any(kind(p) == "SYN" for p in conn if p["src"] == CLIENT):
            continue
        r = analyse(conn, R)
        r["port"] = port
        r["bench"] = float(rows[i][hs_col]) / 1e3 if hs_col and i < len(rows) and rows[i][hs_col] not in ("", "-1") else None
        res.append(r)
    for r in res:
        r["lag_read"] = max(0.0, r["bench"] - r["hs_cap"]) if r["bench"] is not None and r["hs_cap"] else 0.0
        r["lag"] = r["lag_ch"] + r["lag_srv"] + r["lag_read"]
        r["cls"] = ("syn" if r["syn"][1] or r["synack"][1] else "ch" if any(c[2] for c in r["ch"]) else
                    "flight" if any(c[2] for c in r["fl"]) else "clean")
    print("per connection (times in ms from the first SYN; a copy is (time, segment, lost, ms since the "
          "previous copy)):")
    for r in res:
        hs = r["bench"] if r["bench"] is not None else r["hs_cap"]
        print(f"- port {r['port']}: class {r['cls']}, endpoints' delays {r['lag']:.0f} ms; "
              f"handshake {hs if hs is None else round(hs)} ms = "
              f"{'-' if hs is None else f'{hs / R:.2f}'} RTT (capture: flight complete at "
              f"{'-' if r['hs_cap'] is None else round(r['hs_cap'])}); SYN x{r['syn'][0]} lost {r['syn'][1]} "
              f"at {r['syn'][2]}; SYN-ACK x{r['synack'][0]} lost {r['synack'][1]} at {r['synack'][2]}; "
              f"ACKs lost c->s {r['acks_c'][1]}/{r['acks_c'][0]}, s->c {r['acks_s'][1]}/{r['acks_s'][0]}")
        print(f"    ClientHello {len(r['ch_segs'])} segs: {[c for c in r['ch']]}")
        print(f"    flight {len(r['fl_segs'])} segs: {[c for c in r['fl']]}")
        if r["fl_retx"]:
            print(f"    flight retransmissions (time, seg, ms since the last ACK in, ms since the last send): "
                  f"{r['fl_retx']}")
    def pct(v):
        v = sorted(v)
        return " ".join(f"{q} {v[int(f * (len(v) - 1) + 0.5)]:.0f}" for q, f in (("p25", .25), ("median", .5),
                                                                                 ("p95", .95)))
    lags = [r["lag"] for r in res if r["bench"] is not None]
    if lags:
        print(f"the endpoints' own delays per connection (ClientHello written after the SYN-ACK, flight after the "
              f"ClientHello, handshake reported after the flight), ms: {pct(lags)}; over 0.1 RTT in "
              f"{sum(x > 0.1 * R for x in lags)} of {len(lags)}")
        print(f"handshake less those delays, ms: "
              f"{pct([r['bench'] - r['lag'] for r in res if r['bench'] is not None])}")
    # By the first thing lost (connect, ClientHello, the flight, nothing): how many, and
    # their handshakes less the endpoints' delays, in round trips.
    for cls in ("clean", "flight", "ch", "syn"):
        v = [(r["bench"] - r["lag"]) / R for r in res if r["cls"] == cls and r["bench"] is not None]
        if v:
            print(f"  {cls:6} {len(v):4} ({100 * len(v) / len(res):4.1f} %): RTT less delays {pct(v)}")
    hs = sorted(r["bench"] for r in res if r["bench"] is not None)
    if hs:
        print(f"handshake ms: p25 {hs[int(0.25 * (len(hs) - 1) + 0.5)]:.0f} median "
              f"{hs[int(0.5 * (len(hs) - 1) + 0.5)]:.0f} p95 {hs[int(0.95 * (len(hs) - 1) + 0.5)]:.0f} "
              f"over {len(hs)}")
    clean = [r for r in res if r["syn"][1] == 0 and r["synack"][1] == 0 and not any(c[2] for c in r["ch"]) and
             not any(c[2] for c in r["fl"])]
    print(f"connections with no SYN, SYN-ACK, ClientHello or flight segment lost: {len(clean)} of {len(res)}")
    slow_clean = [r for r in clean if r["bench"] is not None and r["bench"] > 2.5 * R]
    print(f"  of which slower than 2.5 RTT: {len(slow_clean)}: "
          f"{[(r['port'], round(r['bench'])) for r in slow_clean]}")


if __name__ == "__main__":
    sys.exit(main())
