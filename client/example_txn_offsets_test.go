package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/sim"
)

// waitMarkers waits until the sim's coordinator has ended id's last
// transaction (EndTxn is answered before its markers are written).
func waitMarkers(c *sim.Cluster, id string) {
	for {
		d, _ := c.DescribeTransaction(id)
		if d.State == sim.TxnEmpty || d.State == sim.TxnCompleteCommit || d.State == sim.TxnCompleteAbort {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// Consume-transform-produce: the records a batch of input produced and
// the input's consumed offsets commit together, or not at all. The sim
// shows the group's committed offsets (Cluster.CommittedOffsets).
func ExampleProducer_SendOffsetsToTransaction() {
	c := exampleCluster()
	defer c.Close()
	p, err := client.NewProducer(client.Brokers(c.Addrs()...), client.TransactionalID("enricher"))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := p.InitTransactions(ctx); err != nil {
		log.Fatal(err)
	}
	// A group without membership (a program assigning its own partitions).
	group := client.GroupMetadata{GroupID: "enrichers", GenerationID: -1}

	// process writes the output of the input records consumed up to next
	// (the offset of the next one to read) and commits both.
	process := func(next int64, commit bool) {
		if err := p.BeginTransaction(); err != nil {
			log.Fatal(err)
		}
		p.Produce(ctx, &client.Record{Topic: "orders", Value: []byte(fmt.Sprintf("enriched-up-to-%d", next))}, nil)
		offsets := []client.TxnOffset{{Topic: "orders", Partition: 0, Offset: next, LeaderEpoch: -1}}
		err := p.SendOffsetsToTransaction(ctx, group, offsets)
		if err == nil && commit {
			err = p.CommitTransaction(ctx)
		}
		switch {
		case err == nil && commit:
		case err == nil || errors.Is(err, client.ErrTxnAbortable):
			// Not committed: the output and the offsets are dropped
			// together; the input is read again from the last commit.
			if err := p.AbortTransaction(ctx); err != nil {
				log.Fatal(err)
			}
		default:
			log.Fatal(err) // ErrTxnFatal, or ctx ended (call it again)
		}
		waitMarkers(c, "enricher") // the commit's markers apply the offsets
		fmt.Println(c.CommittedOffsets("enrichers"))
	}
	process(10, true)
	process(20, false)
	process(30, true)
	// Output:
	// map[orders:map[0:10]]
	// map[orders:map[0:10]]
	// map[orders:map[0:30]]
}
