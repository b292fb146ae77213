#!/usr/bin/env python3
"""Write the binary seed corpora of the command and bridge fuzz targets.

usage: tests/fuzz/make_seeds.py   (rewrites corpus/command and corpus/bridge)

The layouts follow include/mbx/command.h (a 96-byte little-endian header)
and tui/core/bridgeproto.h ([type][u32 big-endian length][payload]); the
text corpora are hand-written files and need no generator."""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
MAGIC, VERSION = 0x4D425843, 1
OPS = ["nop", "describe", "configure", "point_begin", "batch", "point_end", "quit", "validate",
       "pair_scan", "beffio_pattern", "beff_pattern", "method", "clock_sync", "probe", "threads"]
TOKEN = b"0123456789abcdef" * 4


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

    session = (frame(b"H", TOKEN) + frame(b"A") + frame(b"W", struct.pack(">HH", 24, 80)) +
               frame(b"D", b"q") + frame(b"D", b"\x1b[?1049h\x1b[H" * 40) + frame(b"Q"))
    write("bridge", "session_whole", b"\x00" + session)
    write("bridge", "session_bytewise", b"\x01" + session)
    write("bridge", "session_7", b"\x07" + session)
    write("bridge", "hello", b"\x00" + frame(b"H", TOKEN))
    write("bridge", "winsize_max", b"\x00" + frame(b"W", b"\xff\xff\xff\xff"))
    write("bridge", "data_1000", b"\x40" + frame(b"D", bytes(range(256)) * 4)[:1005])
    write("bridge", "empty_data", b"\x00" + frame(b"D") + frame(b"D"))
    write("bridge", "unknown_type", b"\x00" + frame(b"X", b"x"))
    write("bridge", "winsize_short", b"\x00" + frame(b"W", b"\x00\x18\x00"))
    write("bridge", "hello_upper", b"\x00" + frame(b"H", TOKEN.upper()))
    write("bridge", "hello_short", b"\x00" + frame(b"H", TOKEN[:63]))
    write("bridge", "goodbye_payload", b"\x00" + frame(b"Q", b"x"))
    write("bridge", "too_long", b"\x03" + frame(b"D", b"", length=65537))
    write("bridge", "partial", b"\x02" + frame(b"D", b"abcdef")[:8])


if __name__ == "__main__":
    main()
