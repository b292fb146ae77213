#!/usr/bin/env python3
"""Write the binary seed corpora of the command, bridge and report fuzz targets.

usage: tests/fuzz/make_seeds.py   (rewrites corpus/command, corpus/bridge and
corpus/report)

The layouts follow include/mbx/command.h (a 96-byte little-endian header),
include/mbx/pointparams.h (POINT_BEGIN's payload, a point's parameters),
tui/term/bridgeproto.h ([type][u32 big-endian length][payload]) and the
head comment of fuzz_report.c (a shape byte, then a name and five files
cut at "\n@@\n"; they hold control bytes, hence generated); the other
text corpora are hand-written files and need no generator."""
import hashlib
import hmac
import os
import re
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
MAGIC, VERSION = 0x4D425843, 1
OPS = ["nop", "describe", "configure", "point_begin", "batch", "point_end", "quit", "validate",
       "pair_scan", "beffio_pattern", "beff_pattern", "method", "clock_sync", "probe", "threads",
       "prefault"]
# A point's parameters: version, length, then the fields of MBX_POINT_PARAMS
# in its order, read from the header so the seeds follow the list.
PP_HEADER = os.path.join(HERE, "..", "..", "include", "mbx", "pointparams.h")
PP_PACK = {"I32": "i", "U32": "I", "I64": "q", "U64": "Q", "F64": "d", "F64N": "d"}


def params_list():
    """The version and the (name, struct format letter) of each field."""
    with open(PP_HEADER) as f:
        text = f.read()
    version = int(re.search(r"#define MBX_POINT_PARAMS_VERSION (\d+)", text).group(1))
    fields = re.findall(r"^\s*X\((I32|U32|I64|U64|F64N?), (\w+),", text, re.M)
    return version, [(name, PP_PACK[t]) for t, name in fields]


PP_VERSION, PP_FIELDS = params_list()
PARAMS_FMT = "<" + "".join(c for _, c in PP_FIELDS)
PARAMS_SIZE = 4 + struct.calcsize(PARAMS_FMT)
# A valid record; a field the list gains later is 0 unless set here.
PARAMS = dict(bench_id=3, procs=4, bytes=4096, param=1, pair_a=0, pair_b=3, warm_calls=128,
              warm_floor_s=1e-3, companion=float("nan"))
TOKEN = b"0123456789abcdef" * 4
NR, NL = bytes(range(32)), bytes(range(32, 64))  # rank 0's and the launcher's nonces


def mac(label):
    """mbx_bridge_mac: HMAC-SHA256 keyed by the token over label, NR, NL."""
    return hmac.new(TOKEN, label + b"\0" + NR + NL, hashlib.sha256).digest()


def wire(op, seq=1, bench=0, procs=2, payload=0, nbytes=0, iarg=(0, 0, 0, 0),
         darg=(0.0, 0.0, 0.0, 0.0), magic=MAGIC, version=VERSION):
    """One command header as mbx_cmd_encode writes it."""
    return (struct.pack("<IHHIiiIQ", magic, version, op, seq, bench, procs, payload, nbytes) +
            struct.pack("<4q", *iarg) + struct.pack("<4d", *darg))


def fields(op, seq=1, bench=0, procs=2, nbytes=0, payload=0, iarg=(0, 0, 0, 0),
           darg=(0.0, 0.0, 0.0, 0.0)):
    """The field values fuzz_command.c encodes (native order, no magic)."""
    return (struct.pack("<HIiiQI", op, seq, bench, procs, nbytes, payload) +
            struct.pack("<4q", *iarg) + struct.pack("<4d", *darg))


def params(version=PP_VERSION, length=PARAMS_SIZE, **kw):
    """A point's parameters as mbx_point_params_encode writes them."""
    v = dict(PARAMS, **kw)
    values = [v.get(name, 0) for name, _ in PP_FIELDS]
    return struct.pack("<HH", version, length) + struct.pack(PARAMS_FMT, *values)


def params_fields(**kw):
    """The field values fuzz_command.c encodes (no version and length)."""
    return params(**kw)[4:]


def frame(kind, payload=b"", length=None):
    return kind + struct.pack(">I", len(payload) if length is None else length) + payload


def write(sub, name, data):
    d = os.path.join(HERE, "corpus", sub)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def main():
    for op, name in enumerate(OPS):
        write("command", name, wire(op, seq=op + 1, bench=3, procs=4, nbytes=1 << op,
                                    iarg=(op, 1, -1, 0), darg=(0.5, -1.0, 1e-6, float("nan"))))
    write("command", "batch_payload", wire(4, payload=1 << 20, iarg=(100, 0, 0, 0)))
    write("command", "bad_magic", wire(0, magic=0x43584D42))
    write("command", "bad_version", wire(0, version=2))
    write("command", "bad_opcode", wire(len(OPS)))
    write("command", "payload_too_big", wire(0, payload=(1 << 20) + 1))
    write("command", "sequence", wire(2, iarg=(1, 0, 0, 0)) + wire(3, bench=7, nbytes=4096) +
          wire(4, iarg=(16, 0, 0, 0)) + wire(5) + wire(6))
    write("command", "truncated", wire(4)[:50])
    write("command", "fields_quit", fields(6, iarg=(3, 0, 0, 0)))
    write("command", "fields_bad", fields(99, payload=(1 << 20) + 1))
    write("command", "params", params())
    write("command", "params_set", params(root=3, pair_a=1, rma_sync=4, resync=1, buf_offset=4032,
                                          companion=2.5e-6, param=16))
    write("command", "point_begin_params", wire(3, payload=PARAMS_SIZE) + params(warm_calls=8))
    write("command", "params_bad_version", params(version=PP_VERSION + 1))
    write("command", "params_bad_length", params(length=PARAMS_SIZE + 8))
    write("command", "params_long", params() + b"\0" * 8)
    write("command", "params_truncated", params()[:40])
    write("command", "params_rma_sync_out", params(rma_sync=5))
    write("command", "params_root_out", params(root=4))
    write("command", "params_offset_step", params(buf_offset=100))
    write("command", "params_floor_nan", params(warm_floor_s=float("nan")))
    write("command", "params_fields", params_fields(companion=1e-6) + params_fields(procs=0))

    proof = NL + mac(b"mpibex bridge: launcher proof")
    hello = mac(b"mpibex bridge: rank 0's hello")
    session = (frame(b"C", NR) + frame(b"P", proof) + frame(b"H", hello) + frame(b"A") + frame(b"W", struct.pack(">HH", 24, 80)) +
               frame(b"D", b"q") + frame(b"D", b"\x1b[?1049h\x1b[H" * 40) + frame(b"Q"))
    write("bridge", "session_whole", b"\x00" + session)
    write("bridge", "session_bytewise", b"\x01" + session)
    write("bridge", "session_7", b"\x07" + session)
    write("bridge", "challenge", b"\x00" + frame(b"C", NR))
    write("bridge", "proof", b"\x00" + frame(b"P", proof))
    write("bridge", "hello", b"\x00" + frame(b"H", hello))
    write("bridge", "winsize_max", b"\x00" + frame(b"W", b"\xff\xff\xff\xff"))
    write("bridge", "data_1000", b"\x40" + frame(b"D", bytes(range(256)) * 4)[:1005])
    write("bridge", "empty_data", b"\x00" + frame(b"D") + frame(b"D"))
    write("bridge", "unknown_type", b"\x00" + frame(b"X", b"x"))
    write("bridge", "winsize_short", b"\x00" + frame(b"W", b"\x00\x18\x00"))
    write("bridge", "hello_token", b"\x00" + frame(b"H", TOKEN))  # the old hello: refused
    write("bridge", "challenge_short", b"\x00" + frame(b"C", NR[:31]))
    write("bridge", "proof_long", b"\x00" + frame(b"P", proof + b"x"))
    write("bridge", "goodbye_payload", b"\x00" + frame(b"Q", b"x"))
    write("bridge", "too_long", b"\x03" + frame(b"D", b"", length=65537))
    write("bridge", "partial", b"\x02" + frame(b"D", b"abcdef")[:8])

    report_seeds()


RCOLS = ("benchmark,procs,bytes,n,tmean_us,median_us,ci95_lo_us,ci95_hi_us,status,bandwidth_MBps,label,"
         "root,op,param,param_name")
MCOLS = ("benchmark,procs,bytes,runs,n_total,median_us,median_min_us,median_max_us,spread_rel,"
         "status,bandwidth_MBps,label,root,op,param,param_name")
HOSTILE = [b"bq`touch PWNED`", b"$(touch PWNED)", b'dq"; system("touch PWNED") #',
           b"sq'; system('touch PWNED') #", b"esc\x1b]0;T\x07\x1b[2J\x9b\xc2\x9b",
           b"<script>x</script>|`md`|", b"@png_term", b"'<touch PWNED'"]


def csv_field(v):
    if any(c in v for c in b',"\n\r'):
        return b'"' + v.replace(b'"', b'""') + b'"'
    return v


def results(names, scale=1.0, label=b"cli"):
    rows = [RCOLS.encode()]
    for i, n in enumerate(names):
        for b in (1, 64, 4096):
            t = (0.5 + i + b / 1000.0) * scale
            rows.append(b",".join([csv_field(n), b"2", str(b).encode(), b"8", b"%.4f" % t,
                                   b"%.4f" % t, b"%.4f" % (t * 0.95), b"%.4f" % (t * 1.05), b"SETTLED",
                                   b"%.3f" % (b / t), csv_field(label), b"", csv_field(n), b"",
                                   csv_field(n)]))
    return b"\n".join(rows) + b"\n"


def obs(names, scale=1.0, label=b"cli"):
    rows = [b"benchmark,procs,bytes,obs,time_us,label,root,param"]
    for i, n in enumerate(names):
        for b in (1, 64, 4096):
            for k in range(6):
                t = (0.5 + i + b / 1000.0) * scale * (1 + k / 40.0)
                rows.append(b",".join([csv_field(n), b"2", str(b).encode(), str(k).encode(),
                                       b"%.4f" % t, csv_field(label), b"", b""]))
    return b"\n".join(rows) + b"\n"


def merged(names):
    rows = [MCOLS.encode()]
    for i, n in enumerate(names):
        t = 1.0 + i
        rows.append(b",".join([csv_field(n), b"2", b"8", b"3", b"24", b"%.3f" % t, b"%.3f" % t,
                               b"%.3f" % (t * 1.2), b"0.2", b"SETTLED", b"", b"", b"", b"", b"",
                               b""]))
    return b"\n".join(rows) + b"\n"


def env(names):
    return b"key,value\ntool,mpibex\n" + b"".join(
        b"env.X" + str(k).encode() + b"," + csv_field(n) + b"\n" for k, n in enumerate(names))


def report_seeds():
    sep = b"\n@@\n"
    plain = [b"pingpong.send_recv", b"coll.allreduce"]
    write("report", "one_results", b"\x00" + sep.join(
        [b"x", results(plain), obs(plain), env(plain), b"", b""]))
    write("report", "two_results", b"\x01" + sep.join(
        [b"y", results(plain), obs(plain), env(plain), results(plain, 1.5), obs(plain, 1.5)]))
    write("report", "launches", b"\x03" + sep.join(
        [b"z", results(plain), obs(plain), b"", results(plain, 1.1), results(plain, 1.2)]))
    write("report", "merged", b"\x00" + sep.join([b"m", merged(plain), b"", b"", b"", b""]))
    write("report", "hostile_names", b"\x03" + sep.join(
        [b"`touch N`\x1b]0;T\x07'\"\n", results(HOSTILE, label=HOSTILE[2]), obs(HOSTILE),
         env(HOSTILE), results(HOSTILE, 1.3), results(HOSTILE, 1.4)]))
    write("report", "hostile_compare", b"\x01" + sep.join(
        [b"$(id)", results(HOSTILE), obs(HOSTILE), env(HOSTILE), results(HOSTILE, 2.0),
         obs(HOSTILE, 2.0)]))
    write("report", "bad_number", b"\x00" + sep.join(
        [b"b", results([b"x"]).replace(b",8,", b",\x1b[31m8`id`,", 1), b"", b"", b"", b""]))


if __name__ == "__main__":
    main()
