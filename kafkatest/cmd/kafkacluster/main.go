// Command kafkacluster runs a real Apache Kafka cluster on 127.0.0.1
// without Docker, for people and other clients:
//
//	go run ./kafkatest/cmd/kafkacluster -brokers 3 -topic events:6
//
// -kafka-version runs another release kafkatest knows: 3.9 (KRaft), 2.8.1
// or 2.2.2 (ZooKeeper mode: a ZooKeeper beside the brokers, stopped with
// them), e.g. -kafka-version 2.8.
//
// It prints the comma-separated bootstrap addresses on its first line,
// serves until SIGINT or SIGTERM, then stops every broker and removes the
// cluster's files (the contract of `rollsafe sim`). The broker jars come
// from kafkatest/fetch.sh; Java 17+ is needed.
//
// Secured listeners are added beside the plaintext one on request:
//
//	go run ./kafkatest/cmd/kafkacluster -topic events:6 -tls -sasl PLAIN,SCRAM-SHA-512,OAUTHBEARER -user alice:alice-secret
//
// -tls adds an SSL listener (TLS), -sasl a SASL_PLAINTEXT one (SASL) and,
// with -tls, a SASL_SSL one (SASL_TLS), each with the mechanisms named.
// After the first line comes one line per secured listener, in
// librdkafka's and the Java client's property names:
//
//	TLS 127.0.0.1:41001,... security.protocol=SSL ssl.ca.location=DIR/ca.pem
//	SASL 127.0.0.1:41007,... security.protocol=SASL_PLAINTEXT sasl.mechanisms=PLAIN,SCRAM-SHA-512,OAUTHBEARER sasl.username=alice sasl.password=alice-secret oauthbearer.token.file=DIR/token.jwt
//
// The CA certificate of the TLS listeners is written to DIR/ca.pem; with
// OAUTHBEARER (Kafka's unsecured JWS validator: any token with "alg":"none",
// a "sub" and a future "exp" passes) an unsecured token for the user,
// valid -token-life, to DIR/token.jwt. Standard error says how to produce
// through each listener with `rollsafe produce`.
//
// See docs/real-kafka.md ("kafkacluster") in the repository.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rollsafe/rollsafe/kafkatest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// topicFlags collects repeated -topic NAME:PARTITIONS flags.
type topicFlags []kafkatest.Topic

func (t *topicFlags) String() string {
	var s []string
	for _, tp := range *t {
		s = append(s, fmt.Sprintf("%s:%d", tp.Name, tp.Partitions))
	}
	return strings.Join(s, ",")
}

func (t *topicFlags) Set(v string) error {
	name, parts, ok := strings.Cut(v, ":")
	if !ok || name == "" {
		return fmt.Errorf("want NAME:PARTITIONS, got %q", v)
	}
	n, err := strconv.Atoi(parts)
	if err != nil || n < 1 {
		return fmt.Errorf("bad partition count in %q", v)
	}
	*t = append(*t, kafkatest.Topic{Name: name, Partitions: int32(n)})
	return nil
}

// run serves a cluster until ctx ends; the first stdout line is the
// bootstrap addresses.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("kafkacluster", flag.ContinueOnError)
	fs.SetOutput(stderr)
	brokers := fs.Int("brokers", 3, "number of nodes (each broker and KRaft controller; in ZooKeeper mode brokers beside one ZooKeeper)")
	version := fs.String("kafka-version", kafkatest.KafkaVersion, "Apache Kafka release to run (4.4, 3.9: KRaft; 2.8, 2.2: ZooKeeper mode)")
	replication := fs.Int("replication", 0, "replication factor of -topic topics (default min(3, brokers))")
	heap := fs.Int("heap-mb", 512, "maximum heap of each broker JVM, MB")
	dir := fs.String("dir", "", "directory for configs, data and logs (default: a temporary one, removed at exit)")
	startTimeout := fs.Duration("start-timeout", 3*time.Minute, "how long one broker may take from JVM start to serving (a loaded 2-core machine needs minutes)")
	lockWait := fs.Duration("lock-wait", 10*time.Minute, "how long to wait for another kafkatest cluster on this machine to end first (one runs at a time)")
	direct := fs.Bool("direct", false, "advertise each broker's own client listener instead of its fault proxy (for throughput measurements: no extra copy of every byte)")
	var topics topicFlags
	fs.Var(&topics, "topic", "NAME:PARTITIONS to create (repeatable)")
	sec := addSecurityFlags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "kafkacluster: unexpected arguments %q\n", fs.Args())
		return 2
	}
	v, err := kafkatest.ParseVersion(*version)
	if err != nil {
		fmt.Fprintf(stderr, "kafkacluster: -kafka-version: %v\n", err)
		return 2
	}
	if *brokers < 1 {
		fmt.Fprintln(stderr, "kafkacluster: -brokers must be at least 1")
		return 2
	}
	if *replication > *brokers {
		fmt.Fprintf(stderr, "kafkacluster: -replication %d exceeds -brokers %d\n", *replication, *brokers)
		return 2
	}
	cfg := kafkatest.Config{Version: v, Brokers: *brokers, HeapMB: *heap, Dir: *dir, StartTimeout: *startTimeout, Direct: *direct,
		Logf: func(f string, a ...any) { fmt.Fprintf(stderr, f+"\n", a...) }}
	if err := sec.apply(&cfg); err != nil {
		fmt.Fprintf(stderr, "kafkacluster: %v\n", err)
		return 2
	}
	// Launch may first wait for another kafkatest cluster on this machine.
	startCtx, cancel := context.WithTimeout(ctx, *lockWait+*startTimeout)
	defer cancel()
	c, err := kafkatest.Launch(startCtx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "kafkacluster: %v\n", err)
		return 1
	}
	code := serve(ctx, startCtx, c, cfg.Listeners, sec, topics, int16(*replication), stdout, stderr)
	if err := c.Close(); err != nil {
		fmt.Fprintf(stderr, "kafkacluster: %v\n", err)
		return 1
	}
	return code
}

func serve(ctx, startCtx context.Context, c *kafkatest.Cluster, listeners []kafkatest.Listener, sec *securityFlags,
	topics topicFlags, rf int16, stdout, stderr io.Writer) int {
	for _, t := range topics {
		t.Replication = rf
		if err := c.CreateTopic(startCtx, t); err != nil {
			fmt.Fprintf(stderr, "kafkacluster: %v\n", err)
			return 1
		}
	}
	lines, howto, err := sec.describe(c, listeners, time.Now())
	if err != nil {
		fmt.Fprintf(stderr, "kafkacluster: %v\n", err)
		return 1
	}
	out := append([]string{strings.Join(c.Addrs(), ",")}, lines...)
	if _, err := fmt.Fprintln(stdout, strings.Join(out, "\n")); err != nil {
		return 1
	}
	for _, h := range howto {
		fmt.Fprintf(stderr, "kafkacluster: %s\n", h)
	}
	<-ctx.Done()
	return 0
}
