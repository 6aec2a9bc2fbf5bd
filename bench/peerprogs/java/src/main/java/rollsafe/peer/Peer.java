package rollsafe.peer;

import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.FileInputStream;
import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.FileOutputStream;
import java.io.FileDescriptor;
import java.io.BufferedOutputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Apache Kafka's Java producer driven by bench's Go tests. Idempotent, acks=all.
 *
 * <pre>
 * Peer scenario BOOTSTRAP TOPIC [key=value ...]
 *     reads "ID PARTITION" lines on stdin, produces "ID|" + 100 bytes to that partition, and
 *     writes "ack ID PARTITION OFFSET" or "err ID PARTITION REASON" per record on stdout;
 *     at stdin's end it flushes, closes (30 s at most) and writes "done".
 * Peer bench BOOTSTRAP TOPIC DATAFILE COUNT WARMUP [key=value ...]
 *     produces WARMUP keyed records from DATAFILE (4-byte big-endian key length, key, 4-byte
 *     value length, value; cycled), flushes, then COUNT more, flushes, and writes
 *     "bench SECONDS CPU_SECONDS ACKED FAILED" (CPU: the process's, over the timed part).
 * Peer life BOOTSTRAP TOPIC DATAFILE COUNT LIFECYCLES [key=value ...]
 *     LIFECYCLES times: creates a producer, produces COUNT keyed records from DATAFILE (cycled,
 *     each lifecycle going on where the last one stopped), flushes, closes it, and writes
 *     "life FIRST_ACK LAST_ACK CLOSE CPU_ACK CPU_CLOSE ACKED FAILED": seconds from before the
 *     producer's creation to its first and last acknowledgement, the close's own time, and
 *     the process's CPU seconds from that start to the last acknowledgement and to the close.
 * Peer txn BOOTSTRAP TOPIC TRANSACTIONAL_ID [key=value ...]
 *     a transactional producer: initTransactions, then "ready"; per line "N commit|abort HOLD_MS
 *     ID:PARTITION ..." one transaction of those records (held open HOLD_MS after the sends),
 *     committed or aborted, and "txn N OUTCOME [DETAIL]" on stdout, OUTCOME one of committed,
 *     aborted, aborted-error (an exception, then the abort KafkaProducer's docs prescribe),
 *     error (the abort failed too), fatal (ProducerFencedException, OutOfOrderSequenceException,
 *     AuthorizationException: the producer is closed). At stdin's end it closes and writes "done".
 * </pre>
 *
 * key=value pairs are producer properties added to the defaults.
 */
public final class Peer {
    private static final PrintStream OUT = new PrintStream(
            new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16), false, StandardCharsets.UTF_8);

    private static void say(String line) {
        synchronized (OUT) {
            OUT.println(line.replace('\n', ' '));
            OUT.flush();
        }
    }

    private static Properties config(String bootstrap, List<String> extra) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "bench-java");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        for (String kv : extra) {
            int eq = kv.indexOf('=');
            p.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        return p;
    }

    private static String reason(Exception e) {
        return e.getClass().getSimpleName() + ": " + e.getMessage();
    }

    private static void scenario(String bootstrap, String topic, List<String> extra) throws IOException {
        byte[] pad = new byte[100];
        Arrays.fill(pad, (byte) 'x');
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config(bootstrap, extra))) {
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                String[] f = line.trim().split(" ");
                if (f.length != 2) {
                    continue;
                }
                final String id = f[0];
                final int part = Integer.parseInt(f[1]);
                byte[] idb = (id + "|").getBytes(StandardCharsets.UTF_8);
                byte[] value = Arrays.copyOf(idb, idb.length + pad.length);
                System.arraycopy(pad, 0, value, idb.length, pad.length);
                Callback cb = (md, e) -> {
                    if (e == null) {
                        say("ack " + id + " " + md.partition() + " " + md.offset());
                    } else {
                        say("err " + id + " " + part + " " + reason(e));
                    }
                };
                try {
                    producer.send(new ProducerRecord<>(topic, part, null, value), cb);
                } catch (RuntimeException e) {
                    say("err " + id + " " + part + " send: " + reason(e));
                }
            }
            try {
                producer.flush();
            } catch (RuntimeException e) {
                say("log flush: " + reason(e));
            }
            producer.close(Duration.ofSeconds(30));
        } catch (RuntimeException e) {
            say("fatal " + reason(e));
        }
        say("done 0");
    }

    private static byte[] value(String id, byte[] pad) {
        byte[] idb = (id + "|").getBytes(StandardCharsets.UTF_8);
        byte[] value = Arrays.copyOf(idb, idb.length + pad.length);
        System.arraycopy(pad, 0, value, idb.length, pad.length);
        return value;
    }

    /** Thrown for the exceptions KafkaProducer's docs say the producer cannot recover from. */
    private static final class Fatal extends Exception {
        Fatal(String call, KafkaException e) {
            super(call + ": " + reason(e));
        }
    }

    /** Aborts the transaction, again after a TimeoutException (the docs: safe to retry). */
    private static void abort(KafkaProducer<byte[], byte[]> producer) throws Fatal {
        for (int i = 0;; i++) {
            try {
                producer.abortTransaction();
                return;
            } catch (ProducerFencedException | OutOfOrderSequenceException | AuthorizationException e) {
                throw new Fatal("abortTransaction", e);
            } catch (TimeoutException e) {
                if (i >= 2) {
                    throw e;
                }
            }
        }
    }

    private static void txn(String bootstrap, String topic, String txnId, List<String> extra) throws IOException {
        byte[] pad = new byte[100];
        Arrays.fill(pad, (byte) 'x');
        Properties props = config(bootstrap, extra);
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, txnId);
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props);
        try {
            producer.initTransactions();
        } catch (KafkaException e) {
            say("fatal initTransactions: " + reason(e));
            producer.close(Duration.ZERO);
            say("done 0");
            return;
        }
        say("ready");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        boolean closed = false;
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.trim().split(" ");
            if (f.length < 3) {
                continue;
            }
            String n = f[0];
            if (closed) {
                say("txn " + n + " fatal the producer was closed");
                continue;
            }
            String out;
            try {
                producer.beginTransaction();
                for (int i = 3; i < f.length; i++) {
                    int colon = f[i].indexOf(':');
                    producer.send(new ProducerRecord<>(topic, Integer.parseInt(f[i].substring(colon + 1)), null,
                            value(f[i].substring(0, colon), pad)));
                }
                long hold = Long.parseLong(f[2]);
                if (hold > 0) {
                    Thread.sleep(hold);
                }
                if (f[1].equals("abort")) {
                    abort(producer);
                    out = "aborted";
                } else {
                    // commitTransaction's docs: after a TimeoutException it is safe to retry
                    // (not to abort: the commit may be completing).
                    int timeouts = 0;
                    while (true) {
                        try {
                            producer.commitTransaction();
                            break;
                        } catch (TimeoutException e) {
                            if (++timeouts > 2) {
                                throw e;
                            }
                        }
                    }
                    out = timeouts == 0 ? "committed" : "committed after " + timeouts + " TimeoutException";
                }
            } catch (ProducerFencedException | OutOfOrderSequenceException | AuthorizationException e) {
                // KafkaProducer's docs: cannot recover; close the producer.
                out = "fatal " + reason(e);
                closed = true;
            } catch (Fatal e) {
                out = "fatal " + e.getMessage();
                closed = true;
            } catch (KafkaException e) {
                // KafkaProducer's docs: for all other exceptions, abort the transaction and try again.
                try {
                    abort(producer);
                    out = "aborted-error " + reason(e);
                } catch (Fatal e2) {
                    out = "fatal " + reason(e) + "; then " + e2.getMessage();
                    closed = true;
                } catch (KafkaException e2) {
                    out = "error " + reason(e) + "; abortTransaction: " + reason(e2);
                }
            } catch (InterruptedException e) {
                out = "error interrupted";
            }
            say("txn " + n + " " + out);
            if (closed) {
                producer.close(Duration.ZERO);
            }
        }
        if (!closed) {
            try {
                producer.close(Duration.ofSeconds(30));
            } catch (RuntimeException e) {
                say("log close: " + reason(e));
            }
        }
        say("done 0");
    }

    private static List<byte[][]> load(String path) throws IOException {
        List<byte[][]> recs = new ArrayList<>();
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(new FileInputStream(path)))) {
            while (true) {
                int kl;
                try {
                    kl = in.readInt();
                } catch (EOFException e) {
                    break;
                }
                byte[] k = new byte[kl];
                in.readFully(k);
                byte[] v = new byte[in.readInt()];
                in.readFully(v);
                recs.add(new byte[][] {k, v});
            }
        }
        return recs;
    }

    private static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static void bench(String bootstrap, String topic, String path, long count, long warmup, List<String> extra)
            throws IOException {
        List<byte[][]> recs = load(path);
        AtomicLong acked = new AtomicLong(), failed = new AtomicLong();
        Callback cb = (md, e) -> {
            if (e == null) {
                acked.incrementAndGet();
            } else if (failed.incrementAndGet() == 1) {
                say("log first failure: " + reason(e));
            }
        };
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config(bootstrap, extra))) {
            for (long i = 0; i < warmup; i++) {
                byte[][] r = recs.get((int) (i % recs.size()));
                producer.send(new ProducerRecord<>(topic, r[0], r[1]), cb);
            }
            producer.flush();
            acked.set(0);
            failed.set(0);
            long c0 = cpuNanos(), t0 = System.nanoTime();
            for (long i = 0; i < count; i++) {
                byte[][] r = recs.get((int) ((warmup + i) % recs.size()));
                producer.send(new ProducerRecord<>(topic, r[0], r[1]), cb);
            }
            producer.flush();
            long t1 = System.nanoTime(), c1 = cpuNanos();
            say(String.format("bench %.6f %.6f %d %d", (t1 - t0) / 1e9, (c1 - c0) / 1e9, acked.get(), failed.get()));
        }
    }

    private static void life(String bootstrap, String topic, String path, long count, int lifecycles, List<String> extra)
            throws IOException {
        List<byte[][]> recs = load(path);
        long next = 0;
        for (int l = 0; l < lifecycles; l++) {
            AtomicLong acked = new AtomicLong(), failed = new AtomicLong(), firstAck = new AtomicLong();
            Callback cb = (md, e) -> {
                if (e == null) {
                    if (acked.incrementAndGet() == 1) {
                        firstAck.set(System.nanoTime());
                    }
                } else if (failed.incrementAndGet() == 1) {
                    say("log first failure: " + reason(e));
                }
            };
            long c0 = cpuNanos(), t0 = System.nanoTime();
            long t1, c1;
            KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config(bootstrap, extra));
            try {
                for (long i = 0; i < count; i++, next++) {
                    byte[][] r = recs.get((int) (next % recs.size()));
                    producer.send(new ProducerRecord<>(topic, r[0], r[1]), cb);
                }
                producer.flush();
                t1 = System.nanoTime();
                c1 = cpuNanos();
            } finally {
                producer.close();
            }
            long t2 = System.nanoTime(), c2 = cpuNanos();
            long first = acked.get() > 0 ? firstAck.get() : t1;
            say(String.format("life %.6f %.6f %.6f %.6f %.6f %d %d", (first - t0) / 1e9, (t1 - t0) / 1e9, (t2 - t1) / 1e9,
                    (c1 - c0) / 1e9, (c2 - c0) / 1e9, acked.get(), failed.get()));
        }
    }

    public static void main(String[] args) throws Exception {
        say("version kafka-clients " + org.apache.kafka.common.utils.internals.AppInfoParser.getVersion());
        List<String> a = Arrays.asList(args);
        if (args.length >= 3 && args[0].equals("scenario")) {
            scenario(args[1], args[2], a.subList(3, a.size()));
        } else if (args.length >= 4 && args[0].equals("txn")) {
            txn(args[1], args[2], args[3], a.subList(4, a.size()));
        } else if (args.length >= 6 && args[0].equals("bench")) {
            bench(args[1], args[2], args[3], Long.parseLong(args[4]), Long.parseLong(args[5]), a.subList(6, a.size()));
        } else if (args.length >= 6 && args[0].equals("life")) {
            life(args[1], args[2], args[3], Long.parseLong(args[4]), Integer.parseInt(args[5]), a.subList(6, a.size()));
        } else {
            System.err.println("usage: Peer scenario BOOTSTRAP TOPIC [k=v ...] | bench BOOTSTRAP TOPIC DATAFILE COUNT WARMUP [k=v ...]"
                    + " | life BOOTSTRAP TOPIC DATAFILE COUNT LIFECYCLES [k=v ...] | txn BOOTSTRAP TOPIC TRANSACTIONAL_ID [k=v ...]");
            System.exit(2);
        }
        System.exit(0);
    }
}
