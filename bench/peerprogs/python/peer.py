#!/usr/bin/env python3
"""A librdkafka producer (confluent-kafka-python) driven by bench's Go tests.

Two modes, both idempotent with acks=all:

  peer.py scenario BOOTSTRAP TOPIC [key=value ...]
      Reads "ID PARTITION" lines on stdin and produces the value "ID|" + 100
      bytes to that partition. Writes one line per outcome on stdout:
        ack ID PARTITION OFFSET
        err ID PARTITION REASON
      and "fatal REASON" for a fatal error, "log REASON" for librdkafka's
      warnings. At stdin's end it flushes (30 s at most) and writes "done".

  peer.py bench BOOTSTRAP TOPIC DATAFILE COUNT WARMUP [key=value ...]
      Produces WARMUP keyed records from DATAFILE (records of: 4-byte
      big-endian key length, key, 4-byte value length, value), flushes, then
      COUNT more, flushes, and writes
        bench SECONDS CPU_SECONDS ACKED FAILED
      where CPU_SECONDS is the process's user+system time of the timed part.

  peer.py life BOOTSTRAP TOPIC DATAFILE COUNT LIFECYCLES [key=value ...]
      LIFECYCLES times: creates a producer, produces COUNT keyed records from
      DATAFILE (cycled, each lifecycle going on where the last one stopped),
      flushes, destroys it, and writes
        life FIRST_ACK LAST_ACK CLOSE CPU_ACK CPU_CLOSE ACKED FAILED
      seconds from before the producer's creation to its first and last
      acknowledgement, the destruction's own time, and the process's CPU
      seconds from that start to the last acknowledgement and to the end.

  peer.py txn BOOTSTRAP TOPIC TRANSACTIONAL_ID [key=value ...]
      A transactional producer: init_transactions, then "ready". Per line
      "N commit|abort HOLD_MS ID:PARTITION ..." one transaction of those
      records (held open HOLD_MS after producing), committed or aborted, and
        txn N OUTCOME [DETAIL]
      on stdout. OUTCOME: committed; aborted; aborted-error (a call failed
      with txn_requires_abort(), then abort_transaction succeeded); error
      (the abort failed too); fatal (fatal(), or neither retriable() nor
      txn_requires_abort(): confluent-kafka's docs say to treat it as
      fatal). A retriable() error of a commit or abort retries the call.

key=value pairs are librdkafka properties added to the defaults.
"""
import logging
import resource
import struct
import sys
import threading
import time

import confluent_kafka

out_lock = threading.Lock()


def say(line):
    with out_lock:
        sys.stdout.write(line.replace("\n", " ") + "\n")
        sys.stdout.flush()


class LineLogger(logging.Handler):
    """Sends librdkafka's log lines (WARNING and above) to stdout as "log ..."."""

    def emit(self, record):
        say("log " + self.format(record))


def config(bootstrap, extra):
    conf = {
        "bootstrap.servers": bootstrap,
        "enable.idempotence": True,
        "acks": "all",
        "linger.ms": 5,
        "client.id": "bench-librdkafka",
    }
    for kv in extra:
        k, _, v = kv.partition("=")
        conf[k] = v
    log = logging.getLogger("librdkafka")
    log.setLevel(logging.WARNING)
    h = LineLogger()
    h.setFormatter(logging.Formatter("%(message)s"))
    log.addHandler(h)
    conf["logger"] = log

    def on_error(e):
        if e.fatal():
            say("fatal %s" % e)
        else:
            say("log error_cb: %s" % e)

    conf["error_cb"] = on_error
    return conf


def produce(p, *args, **kw):
    while True:
        try:
            p.produce(*args, **kw)
            return None
        except BufferError:
            p.poll(0.01)
        except confluent_kafka.KafkaException as e:
            return e


def scenario(bootstrap, topic, extra):
    p = confluent_kafka.Producer(config(bootstrap, extra))
    pad = b"x" * 100
    stop = threading.Event()

    def poller():
        while not stop.is_set():
            p.poll(0.05)

    t = threading.Thread(target=poller, daemon=True)
    t.start()

    def report(rid, part):
        def cb(err, msg):
            if err is None:
                say("ack %s %d %d" % (rid, msg.partition(), msg.offset()))
            else:
                say("err %s %d %s" % (rid, part, err))
        return cb

    for line in sys.stdin:
        fields = line.split()
        if len(fields) != 2:
            continue
        rid, part = fields[0], int(fields[1])
        e = produce(p, topic, value=rid.encode() + b"|" + pad, partition=part, on_delivery=report(rid, part))
        if e is not None:
            say("err %s %d produce: %s" % (rid, part, e))
    left = p.flush(30)
    stop.set()
    t.join()
    p.poll(0)
    say("done %d" % left)


def kerr(e):
    """The KafkaError of a KafkaException, and its class as a string."""
    err = e.args[0] if e.args and isinstance(e.args[0], confluent_kafka.KafkaError) else None
    if err is None:
        return None, "%s: %s" % (type(e).__name__, e)
    flags = [f for f in ("fatal", "retriable", "txn_requires_abort") if getattr(err, f)()]
    return err, "%s [%s]: %s" % (err.name(), ",".join(flags), err.str())


def txn_call(call, tries=3):
    """Calls a transaction call again while it fails retriable() (its docs)."""
    for i in range(tries):
        try:
            return call()
        except confluent_kafka.KafkaException as e:
            err, _ = kerr(e)
            if err is None or not err.retriable() or i == tries - 1:
                raise


def txn(bootstrap, topic, txnid, extra):
    conf = config(bootstrap, extra)
    conf["transactional.id"] = txnid
    p = confluent_kafka.Producer(conf)
    pad = b"x" * 100
    try:
        txn_call(lambda: p.init_transactions(60))
    except confluent_kafka.KafkaException as e:
        say("fatal init_transactions: %s" % kerr(e)[1])
        say("done 0")
        return
    say("ready")
    dead = False
    for line in sys.stdin:
        f = line.split()
        if len(f) < 3:
            continue
        n, action, hold = f[0], f[1], int(f[2])
        if dead:
            say("txn %s fatal the producer can go no further" % n)
            continue
        try:
            p.begin_transaction()
            for r in f[3:]:
                rid, _, part = r.partition(":")
                e = produce(p, topic, value=rid.encode() + b"|" + pad, partition=int(part))
                if e is not None:
                    raise e
            p.poll(0)
            if hold > 0:
                time.sleep(hold / 1000.0)
            if action == "abort":
                txn_call(p.abort_transaction)
                out = "aborted"
            else:
                txn_call(p.commit_transaction)
                out = "committed"
        except confluent_kafka.KafkaException as e:
            err, cls = kerr(e)
            if err is not None and err.txn_requires_abort() and not err.fatal():
                try:
                    txn_call(p.abort_transaction)
                    out = "aborted-error " + cls
                except confluent_kafka.KafkaException as e2:
                    err2, cls2 = kerr(e2)
                    if err2 is not None and err2.fatal():
                        out, dead = "fatal %s; abort_transaction: %s" % (cls, cls2), True
                    else:
                        out = "error %s; abort_transaction: %s" % (cls, cls2)
            else:
                out, dead = "fatal " + cls, True
        say("txn %s %s" % (n, out))
    try:
        # A fatal producer's flush raises the fatal error again.
        p.flush(30)
    except confluent_kafka.KafkaException as e:
        say("log close: %s" % kerr(e)[1])
    say("done 0")


def load(path):
    recs = []
    with open(path, "rb") as f:
        data = f.read()
    i = 0
    while i < len(data):
        (kl,) = struct.unpack_from(">I", data, i)
        i += 4
        key = data[i:i + kl]
        i += kl
        (vl,) = struct.unpack_from(">I", data, i)
        i += 4
        recs.append((key, data[i:i + vl]))
        i += vl
    return recs


def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def bench(bootstrap, topic, path, count, warmup, extra):
    recs = load(path)
    p = confluent_kafka.Producer(config(bootstrap, extra))
    counts = {"acked": 0, "failed": 0}

    def cb(err, msg):
        if err is None:
            counts["acked"] += 1
        else:
            counts["failed"] += 1
            if counts["failed"] == 1:
                say("log first failure: %s" % err)

    def run(n, start):
        for j in range(n):
            key, value = recs[(start + j) % len(recs)]
            e = produce(p, topic, value=value, key=key, on_delivery=cb)
            if e is not None:
                counts["failed"] += 1
            p.poll(0)
        while p.flush(60) > 0:
            pass

    run(warmup, 0)
    counts["acked"] = counts["failed"] = 0
    c0, t0 = cpu(), time.monotonic()
    run(count, warmup)
    elapsed, used = time.monotonic() - t0, cpu() - c0
    say("bench %.6f %.6f %d %d" % (elapsed, used, counts["acked"], counts["failed"]))


def life(bootstrap, topic, path, count, lifecycles, extra):
    recs = load(path)
    conf = config(bootstrap, extra)
    nxt = 0
    for _ in range(lifecycles):
        counts = {"acked": 0, "failed": 0, "first": None}

        def cb(err, msg):
            if err is None:
                counts["acked"] += 1
                if counts["first"] is None:
                    counts["first"] = time.monotonic()
            else:
                counts["failed"] += 1
                if counts["failed"] == 1:
                    say("log first failure: %s" % err)

        c0, t0 = cpu(), time.monotonic()
        p = confluent_kafka.Producer(dict(conf))
        for _ in range(count):
            key, value = recs[nxt % len(recs)]
            nxt += 1
            e = produce(p, topic, value=value, key=key, on_delivery=cb)
            if e is not None:
                counts["failed"] += 1
            p.poll(0)
        while p.flush(60) > 0:
            pass
        t1, c1 = time.monotonic(), cpu()
        # The handle is destroyed (its threads joined) when the last
        # reference goes; close() where the binding has it.
        close = getattr(p, "close", None)
        if close is not None:
            close()
        del p
        t2, c2 = time.monotonic(), cpu()
        first = counts["first"] if counts["first"] is not None else t1
        say("life %.6f %.6f %.6f %.6f %.6f %d %d" % (first - t0, t1 - t0, t2 - t1, c1 - c0, c2 - c0,
                                                   counts["acked"], counts["failed"]))


def main(argv):
    v = confluent_kafka.version()
    say("version confluent-kafka %s librdkafka %s" % (v if isinstance(v, str) else v[0], confluent_kafka.libversion()[0]))
    if len(argv) >= 3 and argv[0] == "scenario":
        scenario(argv[1], argv[2], argv[3:])
    elif len(argv) >= 4 and argv[0] == "txn":
        txn(argv[1], argv[2], argv[3], argv[4:])
    elif len(argv) >= 6 and argv[0] == "bench":
        bench(argv[1], argv[2], argv[3], int(argv[4]), int(argv[5]), argv[6:])
    elif len(argv) >= 6 and argv[0] == "life":
        life(argv[1], argv[2], argv[3], int(argv[4]), int(argv[5]), argv[6:])
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
