package bench

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/rollsafe/rollsafe/sim"
)

// The peer benchmarks run their broker in a child process (this test
// binary, re-executed with peersBrokerEnv set), so that allocs/op and B/op
// count the client only and a CPU profile of the benchmark shows the client
// only. The broker still shares the machine's cores, as a real local broker
// would.
const (
	peersBrokerEnv  = "ROLLSAFE_PEERS_BROKER" // "kfake:N" or "sim:N", N brokers
	peersTopic      = "peers"
	peersPartitions = 6
)

// errBadBrokerSpec is returned for a malformed peersBrokerEnv value.
var errBadBrokerSpec = errors.New("bench: bad broker spec")

func TestMain(m *testing.M) {
	if spec := os.Getenv(peersBrokerEnv); spec != "" {
		if err := serveBroker(spec, os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "broker process:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if spec := os.Getenv(goLifeEnv); spec != "" {
		if err := serveGoLife(spec); err != nil {
			fmt.Fprintln(os.Stderr, "life child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if spec := os.Getenv(goThroughputEnv); spec != "" {
		if err := serveGoThroughput(spec); err != nil {
			fmt.Fprintln(os.Stderr, "throughput child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// brokerSpec is a broker kind ("kfake" or "sim") and a broker count.
type brokerSpec struct {
	kind    string
	brokers int
}

func (s brokerSpec) String() string { return s.kind + ":" + strconv.Itoa(s.brokers) }

func parseBrokerSpec(v string) (brokerSpec, error) {
	kind, n, ok := strings.Cut(v, ":")
	count, err := strconv.Atoi(n)
	if !ok || err != nil || count < 1 || count > 16 || (kind != "kfake" && kind != "sim") {
		return brokerSpec{}, fmt.Errorf("%w: %q", errBadBrokerSpec, v)
	}
	return brokerSpec{kind: kind, brokers: count}, nil
}

// startCluster starts the cluster spec names in this process: topic
// peersTopic with peersPartitions partitions, partition p led by broker
// p mod brokers, produced batches acknowledged and discarded.
func startCluster(spec brokerSpec) (addrs []string, closeFn func(), err error) {
	switch spec.kind {
	case "kfake":
		c, err := kfake.NewCluster(kfake.NumBrokers(spec.brokers), kfake.BlackholeProduce(),
			kfake.SeedTopics(peersPartitions, peersTopic))
		if err != nil {
			return nil, nil, err
		}
		// kfake places leaders at random; spread them evenly.
		for p := int32(0); p < peersPartitions; p++ {
			if err := c.MoveTopicPartition(peersTopic, p, p%int32(spec.brokers)); err != nil {
				c.Close()
				return nil, nil, fmt.Errorf("kfake: move partition %d: %w", p, err)
			}
		}
		return c.ListenAddrs(), c.Close, nil
	case "sim":
		// The recorder keeps whole requests; a benchmark must not hold on
		// to gigabytes of batches, so it keeps next to nothing.
		c, err := sim.NewCluster(sim.Brokers(spec.brokers), sim.Topic(peersTopic, peersPartitions, 1),
			sim.SinkMode(), sim.RecorderLimit(2))
		if err != nil {
			return nil, nil, err
		}
		return c.Addrs(), func() { _ = c.Close() }, nil
	}
	return nil, nil, fmt.Errorf("%w: kind %q", errBadBrokerSpec, spec.kind)
}

// serveBroker is the child process: it starts the cluster, writes one line
// "addrs a,b,c" to out, and serves until in reaches EOF (the parent closed
// it or died).
func serveBroker(v string, in io.Reader, out io.Writer) error {
	spec, err := parseBrokerSpec(v)
	if err != nil {
		return err
	}
	addrs, closeFn, err := startCluster(spec)
	if err != nil {
		return err
	}
	defer closeFn()
	if _, err := fmt.Fprintf(out, "addrs %s\n", strings.Join(addrs, ",")); err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, bufio.NewReader(in))
	return err
}
