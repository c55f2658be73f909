#!/usr/bin/env bash
# pqtls zeek certs: chains named in ssl.log joined to x509.log (types) and files.log (DER
# sizes), weighed as logged and with ML-DSA-44/65 keys and signatures. Expected values are
# computed here in Python from the logs and the flight model written in src/pki/acct.h
# (an independent reimplementation of its formula, and pki/alg's nominal sizes typed from
# FIPS 204: ML-DSA-44 key 1312 / signature 2420, ML-DSA-65 1952 / 3309).
#  - real: Zeek's ML-DSA-44 certificate baseline (ssl.log + x509.log by fingerprint), with a
#    files.log made from the certificate carved from the same trace (../shared);
#  - synthetic old schema (cert_chain_fuids, x509.log ids, files.log seen_bytes), as TSV and
#    as JSON lines: identical numbers.
set -euo pipefail
source "$(dirname "$0")/lib/zeek.bash"

# expected.py CHAINS_JSON: [{"w": conns, "certs": [[der, pub, sig_own, sig_in_top], ...]}]
cat >"$T/expected.py" <<'PY'
import json, math, sys
ALG = {"ml-dsa-44": (1312, 2420), "ml-dsa-65": (1952, 3309)}
def records(n):
    return n + 22 * (max(1, math.ceil(n / 16384)))
def rounds(der, sig, share=1120, mss=1448, iw=10):
    sh = 4 + 2 + 32 + 1 + 32 + 2 + 1 + 2 + 6 + 8 + share
    cert = 4 + 1 + 3 + sum(3 + d + 2 for d in der)
    flight = 5 + sh + 6 + records(6) + records(cert) + records(4 + 2 + 2 + sig) + records(4 + 48)
    segs = math.ceil(flight / mss)
    r, cum, cwnd = 1, iw, iw
    while cum < segs:
        cwnd *= 2; cum += cwnd; r += 1
    return r
chains = json.load(open(sys.argv[1]))
out = {}
conns = sum(c["w"] for c in chains)
for key, alg in (("as_logged", None), ("ml_dsa_44", "ml-dsa-44"), ("ml_dsa_65", "ml-dsa-65")):
    fits = plus1 = plus2 = fitc = 0
    for c in chains:
        certs = c["certs"]
        if alg:
            pub, sig = ALG[alg]
            der = [d - p - (certs[i + 1][2] if i + 1 < len(certs) else top) + pub + sig
                   for i, (d, p, own, top) in enumerate(certs)]
            leaf = sig
        else:
            der, leaf = [x[0] for x in certs], certs[0][2]
        r = rounds(der, leaf)
        fits += c["w"] * (r == 1); plus1 += c["w"] * (r == 2); plus2 += c["w"] * (r >= 3); fitc += r == 1
    out[key] = {"fits_iw_connections": fits, "plus1_rtt_connections": plus1, "plus2_rtt_connections": plus2,
                "fits_iw_chains": fitc}
print(json.dumps({"known_connections": conns, "known_chains": len(chains), **out}))
PY
# compare EXPECTED GOT: every count in EXPECTED equals GOT's.
compare() {
	python3 - "$1" "$2" <<'PY'
import json, sys
e, g = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
bad = [f"{k}.{kk}: {g[k][kk]} != {vv}" for k, v in e.items() if isinstance(v, dict) for kk, vv in v.items() if g[k][kk] != vv]
bad += [f"{k}: {g[k]} != {v}" for k, v in e.items() if not isinstance(v, dict) and g[k] != v]
if bad:
    print("; ".join(bad)); sys.exit(1)
PY
}

# 1. Real: the ML-DSA-44 certificate of Zeek's baseline.
S=${PQTLS_SHARED:-../shared}/data
B=$S/zeek/zeek-btest-baselines-v8
DER=$S/certs/pq/zeek-ml-dsa-44-from-pcap/ml-dsa-44-cert.der
if [ -f "$DER" ] && [ -f "$B/scripts.base.protocols.ssl.ml-dsa-44-cert__ssl.log" ]; then
	size=$(stat -c %s "$DER")
	sha=$(sha256sum "$DER" | cut -d' ' -f1)
	printf '#separator \\x09\n#fields\tfuid\tmime_type\tseen_bytes\tsha256\n#types\tstring\tstring\tcount\tstring\n' >"$T/files-real.log"
	printf 'Fabc\tapplication/x-x509-user-cert\t%s\t%s\n' "$size" "$sha" >>"$T/files-real.log"
	"$PQTLS" zeek certs --json --x509 "$B/scripts.base.protocols.ssl.ml-dsa-44-cert__x509.log" \
		--files "$T/files-real.log" "$B/scripts.base.protocols.ssl.ml-dsa-44-cert__ssl.log" >"$T/real.json"
	echo "[{\"w\": 1, \"certs\": [[$size, 1312, 2420, 2420]]}]" >"$T/real-chains.json"
	python3 "$T/expected.py" "$T/real-chains.json" >"$T/real-exp.json"
	compare "$T/real-exp.json" "$T/real.json" || fail "the ML-DSA-44 chain differs from the expected flight"
	python3 -c "import json,sys; g=json.load(open(sys.argv[1])); assert g['as_logged']['median_der_bytes'] == g['ml_dsa_44']['median_der_bytes'] == $size" "$T/real.json" ||
		fail "an ML-DSA-44 chain should keep its size with ML-DSA-44"
	pass "Zeek's ML-DSA-44 certificate ($size B, joined by fingerprint $sha): as logged = with ML-DSA-44, flight as expected"
else
	echo "note: ../shared is absent: the real ML-DSA-44 chain is not tried"
fi

# 2. Synthetic, old schema: an RSA chain (leaf 2048 <- intermediate 2048, RSA root), an
# ECDSA chain (p256 leaf <- p384 intermediate, ecdsa-with-SHA384 root), one chain with a
# certificate files.log lacks.
python3 - "$T" <<'PY'
import json, sys
t = sys.argv[1]
certs = {  # id: (der, key_type, key_length, curve, sig_alg)
    "FrsaLeaf": (1400, "rsa", 2048, "-", "sha256WithRSAEncryption"),
    "FrsaInt": (1100, "rsa", 2048, "-", "sha256WithRSAEncryption"),
    "FecLeaf": (800, "ecdsa", 256, "prime256v1", "ecdsa-with-SHA384"),
    "FecInt": (1000, "ecdsa", 384, "secp384r1", "ecdsa-with-SHA384"),
    "Fbig": (9000, "rsa", 4096, "-", "sha256WithRSAEncryption"),
    "Fmissing": (None, "rsa", 2048, "-", "sha256WithRSAEncryption"),
}
pub = {("rsa", 2048): (256, 256), ("rsa", 4096): (512, 512), ("ecdsa", 256): (65, 71), ("ecdsa", 384): (97, 103)}
top = {"sha256WithRSAEncryption": 256, "ecdsa-with-SHA384": 103}
chains = [(["FrsaLeaf", "FrsaInt"], 5), (["FecLeaf", "FecInt"], 3), (["Fbig", "FrsaInt"], 2), (["FrsaLeaf", "Fmissing"], 4)]
hdr = "#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n"
with open(t + "/ssl.log", "w") as f, open(t + "/ssl.json", "w") as j:
    f.write(hdr + "#fields\tts\tid.resp_h\tversion\tresumed\tcert_chain_fuids\n#types\ttime\taddr\tstring\tbool\tvector[string]\n")
    for ids, w in chains:
        for i in range(w):
            f.write("1.0\t192.0.2.%d\tTLSv12\tF\t%s\n" % (i + 1, ",".join(ids)))
            j.write(json.dumps({"ts": 1.0, "id.resp_h": "192.0.2.%d" % (i + 1), "version": "TLSv12", "resumed": False, "cert_chain_fuids": ids}) + "\n")
    f.write("1.0\t192.0.2.9\tTLSv13\tT\t(empty)\n")  # TLS 1.3: no chain logged
with open(t + "/x509.log", "w") as f, open(t + "/x509.json", "w") as j:
    f.write(hdr + "#fields\tts\tid\tcertificate.key_alg\tcertificate.sig_alg\tcertificate.key_type\tcertificate.key_length\tcertificate.curve\n")
    for k, (der, kt, kl, cv, sa) in certs.items():
        f.write("1.0\t%s\tx\t%s\t%s\t%d\t%s\n" % (k, sa, kt, kl, cv))
        o = {"ts": 1.0, "id": k, "certificate.sig_alg": sa, "certificate.key_type": kt, "certificate.key_length": kl}
        if cv != "-":
            o["certificate.curve"] = cv
        j.write(json.dumps(o) + "\n")
with open(t + "/files.log", "w") as f, open(t + "/files.json", "w") as j:
    f.write(hdr + "#fields\tts\tfuid\tmime_type\tseen_bytes\n")
    for k, (der, *_ ) in certs.items():
        if der:
            f.write("1.0\t%s\tapplication/x-x509-ca-cert\t%d\n" % (k, der))
            j.write(json.dumps({"ts": 1.0, "fuid": k, "mime_type": "application/x-x509-ca-cert", "seen_bytes": der}) + "\n")
    f.write("1.0\tFother\ttext/html\t123456\n")  # not a certificate
known = []
for ids, w in chains:
    if any(certs[i][0] is None for i in ids):
        continue
    known.append({"w": w, "certs": [[certs[i][0], *pub[(certs[i][1], certs[i][2])], top[certs[i][4]]] for i in ids]})
json.dump(known, open(t + "/chains.json", "w"))
PY
python3 "$T/expected.py" "$T/chains.json" >"$T/exp.json"
"$PQTLS" zeek certs --json --x509 "$T/x509.log" --files "$T/files.log" "$T/ssl.log" >"$T/tsv.json"
compare "$T/exp.json" "$T/tsv.json" || fail "synthetic TSV chains differ from the expected flights"
python3 -c "import json,sys; g=json.load(open(sys.argv[1])); assert (g['chains'], g['connections']) == (4, 14), g" "$T/tsv.json" ||
	fail "4 chains over 14 connections expected (the TLS 1.3 row has none)"
"$PQTLS" zeek certs --json --x509 "$T/x509.json" --files "$T/files.json" "$T/ssl.json" >"$T/json.json"
cmp -s "$T/tsv.json" "$T/json.json" || { diff "$T/tsv.json" "$T/json.json"; fail "JSON logs give other numbers than TSV"; }
pass "synthetic chains (RSA, ECDSA, one too big, one missing a size): TSV = JSON = Python's flights ($(python3 -c "import json;g=json.load(open('$T/tsv.json'));print(g['ml_dsa_65']['fits_iw_connections'], 'of', g['known_connections'])") connections fit IW10 with ML-DSA-65)"
"$PQTLS" zeek certs --x509 "$T/x509.log" --files "$T/files.log" "$T/ssl.log" | grep -q "^ML-DSA-65 keys and signatures" || fail "text table"

expect_err 2 "give --x509 FILE" "$PQTLS" zeek certs "$T/ssl.log"
expect_err 2 "group 'bogus'" "$PQTLS" zeek certs --x509 "$T/x509.log" --group bogus "$T/ssl.log"
expect_err 1 "nope.log" "$PQTLS" zeek certs --x509 "$T/nope.log" "$T/ssl.log"
printf 'garbage\n' >>"$T/x509.log"
expect_err 3 "1 input lines skipped" "$PQTLS" zeek certs --x509 "$T/x509.log" --files "$T/files.log" "$T/ssl.log"
