package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rollsafe/rollsafe/kafkatest"
	"github.com/rollsafe/rollsafe/sim"
)

// runTxnDemo plays the transactions demo on the simulator or, with
// cfg.kafka, on a real local cluster, prints the report and returns the
// exit code.
func runTxnDemo(ctx context.Context, cfg demoConfig, stdout, stderr io.Writer) int {
	var (
		rep txnReport
		err error
	)
	if cfg.kafka {
		rep, err = txnDemoKafka(ctx, stdout, cfg)
	} else {
		rep, err = txnDemoSim(ctx, stdout, cfg)
	}
	if err != nil {
		fmt.Fprintln(stderr, "rollsafe demo:", err)
		return 1
	}
	printTxnReport(stdout, rep)
	if !rep.passed() {
		return 1
	}
	return 0
}

// simTxn is the simulator as the transactions demo's cluster.
type simTxn struct{ c *sim.Cluster }

func (s simTxn) addrs() []string { return s.c.Addrs() }
func (s simTxn) coordinator(_ context.Context, id string) (int32, error) {
	return s.c.TransactionCoordinator(id), nil
}
func (s simTxn) kill(id int32) error                     { return s.c.KillBroker(id) }
func (s simTxn) start(_ context.Context, id int32) error { return s.c.StartBroker(id) }

func txnDemoSim(ctx context.Context, out io.Writer, cfg demoConfig) (txnReport, error) {
	c, err := sim.NewCluster(sim.Brokers(3), sim.Topic(demoTopic, cfg.partitions, 3), sim.RecorderLimit(100))
	if err != nil {
		return txnReport{}, err
	}
	defer c.Close()
	fmt.Fprintf(out, "  3-broker simulated cluster at %s\n", strings.Join(c.Addrs(), ","))
	return demoTransactions(ctx, out, cfg, simTxn{c})
}

// kafkaTxn is a real local cluster as the transactions demo's cluster.
type kafkaTxn struct{ c *kafkatest.Cluster }

func (k kafkaTxn) addrs() []string                           { return k.c.Addrs() }
func (k kafkaTxn) kill(id int32) error                       { return k.c.Kill(id) }
func (k kafkaTxn) start(ctx context.Context, id int32) error { return k.c.Start(ctx, id) }

// coordinator asks the cluster (FindCoordinator) for id's transaction
// coordinator, waiting out a coordinator moving.
func (k kafkaTxn) coordinator(ctx context.Context, id string) (int32, error) {
	ctx, cancel := context.WithTimeout(ctx, kafkaStepTimeout)
	defer cancel()
	return k.c.TransactionCoordinator(ctx, id)
}

func txnDemoKafka(ctx context.Context, out io.Writer, cfg demoConfig) (txnReport, error) {
	rt, err := kafkaRuntime(cfg.kafkaVersion)
	if err != nil {
		return txnReport{}, err
	}
	fmt.Fprintf(out, "  on real Apache Kafka %s (%s)\n", rt.Version, rt.Version.Mode())
	c, err := kafkatest.Launch(ctx, kafkatest.Config{Version: rt.Version, Runtime: rt, Logf: func(format string, args ...any) {
		fmt.Fprintf(out, "  "+format+"\n", args...)
	}})
	if err != nil {
		return txnReport{}, err
	}
	defer func() {
		if err := c.Close(); err != nil {
			fmt.Fprintln(out, "  stopping the cluster:", err)
		}
	}()
	fmt.Fprintf(out, "  3-broker cluster at %s\n", strings.Join(c.Addrs(), ","))
	tctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	// The fixture's events carry timestamps from 2024: without
	// retention.ms=-1 the brokers' time-based retention deletes them.
	err = c.CreateTopic(tctx, kafkatest.Topic{Name: demoTopic, Partitions: cfg.partitions, Replication: 3,
		Configs: map[string]string{"min.insync.replicas": "2", "retention.ms": "-1"}})
	cancel()
	if err != nil {
		return txnReport{}, err
	}
	return demoTransactions(ctx, out, cfg, kafkaTxn{c})
}
