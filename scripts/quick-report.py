#!/usr/bin/env python3
"""Key table and HTML report of `make run` (pqtls sweep --preset quick).

Reads OUT/results.db (every connection, each cell's chain sizes and modelled first flight,
the link self-checks), prints the key table, and writes OUT/report.html (tables, two SVG
charts, the environment) and OUT/summary.json. Standard library only (sqlite3).
`pqtls report` will replace this script.
"""
import html
import json
import os
import re
import sqlite3
import statistics
import subprocess
import sys

ARM_ORDER = ["ecdsa-p256", "rsa-2048", "ml-dsa-44", "ml-dsa-65-leaf-only", "ml-dsa-65", "ml-dsa-65+slh-128s-CA",
             "ecdsa-p256 X25519", "ml-dsa-65 resumed", "ml-dsa-65 0-RTT"]
BASELINE = "ecdsa-p256"


def rtt_ms(label):
    m = re.fullmatch(r"([\d.]+)(us|ms|s)", label)
    if not m:
        return float("nan")
    return float(m.group(1)) * {"us": 1e-3, "ms": 1.0, "s": 1e3}[m.group(2)]


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def bootstrap_ci(a, b, reps=2000):
    """95 % interval of median(b) - median(a) by a seeded bootstrap."""
    import random
    rnd = random.Random(1)
    if len(a) < 3 or len(b) < 3:
        return (float("nan"), float("nan"))
    diffs = sorted(median([rnd.choice(b) for _ in b]) - median([rnd.choice(a) for _ in a])
                   for _ in range(reps))
    return diffs[int(0.025 * reps)], diffs[int(0.975 * reps)]


def rtt_label(us):
    ms = us / 1000
    return f"{ms:g}ms"


def slow_start_rounds(segs, iw=10):
    """Round trips slow start needs to deliver `segs` segments from an initial window of iw."""
    rounds, sent, cwnd = 1, iw, iw
    while sent < segs:
        cwnd *= 2
        sent += cwnd
        rounds += 1
    return rounds


def load(out):
    """Reads OUT/results.db (pqtls sweep --preset quick): connections by RTT and arm, the
    chains' sizes and modelled first flights, and the link self-checks."""
    db = sqlite3.connect(f"file:{os.path.join(out, 'results.db')}?mode=ro", uri=True)
    version = int(db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0])
    if version > 2:
        sys.exit(f"quick-report: results.db has schema version {version}; this script reads up to 2")
    db.row_factory = sqlite3.Row
    runs, chains = {}, {}
    for r in db.execute("SELECT c.rtt_us, c.arm, c.chain_der_bytes, c.first_flight_bytes, c.first_flight_segs, "
                        "n.error_kind AS error, n.handshake_us, n.ttfb_us, n.srtt_us, n.tcp_rx_segs AS tcp_segs_rx, "
                        "n.handshake_rtts, n.tls_group AS 'group', n.sigalg, n.resumed, n.early_accepted "
                        "FROM conn n JOIN cell c USING (cell_id) ORDER BY c.rtt_us, c.cell_index, n.conn_index"):
        rtt = rtt_label(r["rtt_us"])
        runs.setdefault(rtt, {"arms": {}, "log": ""})["arms"].setdefault(r["arm"], []).append(dict(r))
        if r["first_flight_bytes"] is not None:
            chains[r["arm"]] = {"chain_der_bytes": r["chain_der_bytes"], "flight_bytes": r["first_flight_bytes"],
                                "segments": r["first_flight_segs"]}
    for r in db.execute("SELECT c.rtt_cfg_us, c.backend, c.summary FROM link_check c ORDER BY c.link_check_id"):
        if r["rtt_cfg_us"] is not None and rtt_label(r["rtt_cfg_us"]) in runs:
            runs[rtt_label(r["rtt_cfg_us"])]["log"] += f"link check ({r['backend']}): {r['summary']}\n"
    return runs, chains


def flight(chains, arm):
    if arm.endswith("resumed") or arm.endswith("0-RTT"):
        return None  # a PSK handshake sends no certificate: the chain's flight does not apply
    c = chains.get(arm)
    if not c:
        return None
    segs = c["segments"]
    return c["chain_der_bytes"], {"flight_bytes": c["flight_bytes"], "segments": segs,
                                  "fits_initial_window": segs <= 10, "slow_start_rounds": slow_start_rounds(segs)}


def main():
    out, pqtls = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "pqtls"
    runs, chains = load(out)
    rtts = list(runs)
    summary = {"rtts": rtts, "arms": {}}
    errors = 0
    for rtt, run in runs.items():
        for arm, recs in run["arms"].items():
            ok = [r for r in recs if r.get("error") == "ok"]
            errors += len(recs) - len(ok)
            # Phase times in a record count from the connection's own start.
            hs = [r["handshake_us"] / 1e3 for r in ok]
            tt = [r["ttfb_us"] / 1e3 for r in ok]
            srtt = [r["srtt_us"] / 1e3 for r in ok if r.get("srtt_us")]
            segs = [r["tcp_segs_rx"] for r in ok]
            hs_rtts = [r["handshake_rtts"] for r in ok if r.get("handshake_rtts") is not None]
            negotiated = sorted({f'{r.get("group")}/{r.get("sigalg") or "resumed"}' for r in ok})
            resumed = sum(1 for r in ok if r.get("resumed"))
            early = sum(1 for r in ok if r.get("early_accepted"))
            summary["arms"].setdefault(arm, {})[rtt] = {
                "n": len(recs), "ok": len(ok), "handshake_ms": hs, "ttfb_ms": tt,
                "handshake_p50_ms": median(hs), "ttfb_p50_ms": median(tt),
                "srtt_p50_ms": median(srtt), "rx_segments_p50": median(segs),
                "handshake_rtts_p50": median(hs_rtts),
                "negotiated": negotiated, "resumed": resumed, "early_accepted": early}

    arms = [a for a in ARM_ORDER if a in summary["arms"]] + \
           sorted(a for a in summary["arms"] if a not in ARM_ORDER)

    def cell(arm, rtt, key):
        return summary["arms"].get(arm, {}).get(rtt, {}).get(key, float("nan"))

    # The key table, as the blog printed it, plus what the blog could not show.
    lines = []
    lines.append("Handshake time, median ms (TCP connect + TLS 1.3 handshake), and the extra over %s" % BASELINE)
    head = f'{"arm":<24}{"chain B":>8}{"flight B":>9}{"segs":>5}{"IW10":>6}'
    for rtt in rtts:
        head += f'{rtt:>22}'
    wan = max(rtts, key=rtt_ms) if rtts else None
    head += f'{"extra RTTs at " + str(wan):>20}{"TLS RTTs":>10}'
    lines.append(head)
    for arm in arms:
        fl = flight(chains, arm)
        row = f'{arm:<24}'
        if fl:
            row += f'{fl[0]:>8}{fl[1]["flight_bytes"]:>9}{fl[1]["segments"]:>5}{"fits" if fl[1]["fits_initial_window"] else "+" + str(fl[1]["slow_start_rounds"] - 1) + "RTT":>6}'
        else:
            row += f'{"(resumed: no certificate)":>28}'
        for rtt in rtts:
            v = cell(arm, rtt, "handshake_p50_ms")
            base = cell(BASELINE, rtt, "handshake_p50_ms")
            d = v - base
            row += f'{v:>11.2f} ({d:+7.2f})' if arm != BASELINE else f'{v:>11.2f}{"":>10}'
        if wan and arm != BASELINE:
            # The flight model's prediction (IW10 column) beside what was measured.
            d = cell(arm, wan, "handshake_p50_ms") - cell(BASELINE, wan, "handshake_p50_ms")
            row += f'{d / rtt_ms(wan):>+20.2f}'
        if wan:
            row += f'{cell(arm, wan, "handshake_rtts_p50"):>10.2f}' if arm != BASELINE else f'{"":>20}{cell(arm, wan, "handshake_rtts_p50"):>10.2f}'
        lines.append(row)
    lines.append("(IW10: the flight model's prediction from the chain's bytes; extra RTTs: measured, over the")
    lines.append(" baseline; TLS RTTs: median round trips from TCP established to handshake done, over min RTT)")
    lines.append("")
    lines.append("Time to first byte, median ms (connect to first response byte)")
    head = f'{"arm":<24}' + "".join(f'{rtt:>12}' for rtt in rtts) + f'{"measured srtt":>16}'
    lines.append(head)
    for arm in arms:
        row = f'{arm:<24}' + "".join(f'{cell(arm, rtt, "ttfb_p50_ms"):>12.2f}' for rtt in rtts)
        row += "   " + " ".join(f'{cell(arm, rtt, "srtt_p50_ms"):.1f}' for rtt in rtts)
        lines.append(row)
    n_total = sum(v["n"] for a in summary["arms"].values() for v in a.values())
    lines.append("")
    lines.append(f"{n_total} connections, {errors} failed. Negotiated: " + ", ".join(sorted(
        {n for a in summary["arms"].values() for v in a.values() for n in v["negotiated"]})))
    for rtt, run in runs.items():
        for l in run["log"].splitlines():
            lines.append(f"  [{rtt}] {l}")
    table = "\n".join(lines)
    print(table)

    # Environment manifest.
    def cmd(*a):
        try:
            return subprocess.run(a, capture_output=True, text=True, timeout=20).stdout.strip()
        except Exception as e:  # the report must still be written
            return f"({e})"
    env = {"pqtls": cmd(pqtls, "version", "--json"), "kernel": cmd("uname", "-r"),
           "cpus": os.cpu_count()}

    # Report: tables and SVG charts of median handshake time and TTFB per arm per RTT, relative
    # to the baseline measured in the same run (ratios travel between machines).
    svg = chart(summary, arms, rtts, "handshake_p50_ms")
    svg_ttfb = chart(summary, arms, rtts, "ttfb_p50_ms")
    doc = f"""<!doctype html><html><head><meta charset="utf-8"><title>pqtls quick run</title>
<style>body{{font-family:sans-serif;max-width:1100px;margin:2em auto}}pre{{background:#f6f6f6;padding:1em;overflow-x:auto}}</style>
</head><body><h1>pqtls quick run</h1>
<p>Does the certificate type cost handshake time at RTT 1, 70 and 148 ms, and where does a chain
overflow TCP's initial window? Real OpenSSL {html.escape(json.loads(env["pqtls"] or "{}").get("openssl", "?") if env["pqtls"].startswith("{") else "?")}
over real kernel TCP (cubic, MTU 1500) across an emulated link; arms interleaved in rounds.</p>
<h2>Key table</h2><pre>{html.escape(table)}</pre>
<h2>Handshake time relative to {BASELINE} (same RTT, same run)</h2>{svg}
<h2>Time to first byte relative to {BASELINE} (same RTT, same run)</h2>
<p>Where resumption and 0-RTT show: a resumed handshake is as fast as the baseline's, but a
request sent as 0-RTT data is answered a round trip sooner.</p>{svg_ttfb}
<h2>Environment</h2><pre>{html.escape(json.dumps(env, indent=1))}</pre>
<p>Raw records: <code>results.db</code> (SQLite, one row per connection; docs/results.md).</p>
</body></html>"""
    with open(os.path.join(out, "report.html.tmp"), "w") as fh:
        fh.write(doc)
    os.replace(os.path.join(out, "report.html.tmp"), os.path.join(out, "report.html"))
    slim = {"rtts": rtts, "arms": {a: {r: {k: v for k, v in s.items() if not k.endswith("_ms") or "p50" in k}
                                       for r, s in d.items()} for a, d in summary["arms"].items()},
            "environment": env}
    with open(os.path.join(out, "summary.json"), "w") as fh:
        json.dump(slim, fh, indent=1)
    print(f"\nreport: {os.path.join(out, 'report.html')}  (summary.json and raw records beside it)")
    return 1 if errors and errors == n_total else 0


def chart(summary, arms, rtts, key):
    """Bars of each arm's median `key` over the baseline's, per RTT (same run)."""
    # The legend takes four arms a row under the bars; the picture grows with its rows.
    w, h, left, top = 980, 360, 60, 20
    bottom = 44 + 18 * ((len(arms) + 3) // 4)
    colors = ["#4269d0", "#efb118", "#ff725c", "#6cc5b0", "#3ca951", "#ff8ab7", "#a463f2", "#97bbf5", "#9c6b4e"]
    ratios = {}
    for arm in arms:
        for rtt in rtts:
            v = summary["arms"].get(arm, {}).get(rtt, {}).get(key, float("nan"))
            b = summary["arms"].get(BASELINE, {}).get(rtt, {}).get(key, float("nan"))
            ratios[(arm, rtt)] = v / b if b and b == b and v == v else float("nan")
    finite = [r for r in ratios.values() if r == r]
    ymax = max(finite + [1.0]) * 1.1
    gw = (w - left - 20) / max(1, len(rtts))
    bw = gw * 0.8 / max(1, len(arms))
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h + bottom}" font-size="12">']
    for t in range(0, int(ymax * 4) + 1):
        y = top + h - (t / 4) / ymax * h
        parts.append(f'<line x1="{left}" x2="{w - 20}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>'
                     f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{t / 4:.2f}x</text>')
    for gi, rtt in enumerate(rtts):
        x0 = left + gi * gw + gw * 0.1
        for ai, arm in enumerate(arms):
            r = ratios[(arm, rtt)]
            if r != r:
                continue
            bh = r / ymax * h
            x = x0 + ai * bw
            parts.append(f'<rect x="{x:.1f}" y="{top + h - bh:.1f}" width="{bw * 0.9:.1f}" height="{bh:.1f}" fill="{colors[ai % len(colors)]}">'
                         f'<title>{html.escape(arm)} at {rtt}: {r:.3f}x</title></rect>')
        parts.append(f'<text x="{x0 + gw * 0.4:.1f}" y="{top + h + 16}" text-anchor="middle">RTT {html.escape(rtt)}</text>')
    for ai, arm in enumerate(arms):
        x = left + (ai % 4) * 230
        y = top + h + 36 + (ai // 4) * 18
        parts.append(f'<rect x="{x}" y="{y - 10}" width="12" height="12" fill="{colors[ai % len(colors)]}"/>'
                     f'<text x="{x + 16}" y="{y}">{html.escape(arm)}</text>')
    parts.append("</svg>")
    return "".join(parts)


if __name__ == "__main__":
    sys.exit(main())
