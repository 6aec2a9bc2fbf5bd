package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"sync"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/protocol"
)

// Buffered shows the records and bytes the producer holds: here 100
// records wait behind a broker that answers slowly.
func ExampleProducer_Buffered() {
	c := exampleCluster()
	defer c.Close()
	p, err := client.NewProducer(client.Brokers(c.Addrs()...))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close(context.Background())
	ctx := context.Background()
	if err := p.ProduceSync(ctx, &client.Record{Topic: "orders", Value: []byte("warm-up")}).FirstErr(); err != nil {
		log.Fatal(err)
	}
	for b := int32(0); b < 3; b++ {
		_ = c.DelayResponses(b, 200*time.Millisecond)
	}
	for i := 0; i < 100; i++ {
		p.Produce(ctx, &client.Record{Topic: "orders", Value: []byte("order")}, nil)
	}
	records, _ := p.Buffered()
	fmt.Println("buffered:", records)
	if err := p.Flush(ctx); err != nil {
		log.Fatal(err)
	}
	records, _ = p.Buffered()
	fmt.Println("after Flush:", records)
	// Output:
	// buffered: 100
	// after Flush: 0
}

// An unreachable cluster is reported as such, and the record is certainly
// not written.
func ExampleErrBrokersUnreachable() {
	p, err := client.NewProducer(client.Brokers("127.0.0.1:1"), client.UnknownTopicWait(100*time.Millisecond))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close(context.Background())
	err = p.ProduceSync(context.Background(), &client.Record{Topic: "orders", Value: []byte("v")}).FirstErr()
	fmt.Println(errors.Is(err, client.ErrBrokersUnreachable), errors.Is(err, client.ErrNotWritten), errors.Is(err, client.ErrUnknownTopic))
	// Output: true true false
}

// AttemptFailed sees each failed produce attempt with the broker's error,
// while the record itself waits and is written once: here the leader of
// orders[0] answers NOT_ENOUGH_REPLICAS three times (a min.insync.replicas
// outage), and the producer retries after growing backoffs.
func ExampleHooks_attemptFailed() {
	c := exampleCluster()
	defer c.Close()
	var mu sync.Mutex
	refused := 0
	hooks := client.Hooks{AttemptFailed: func(topic string, partition, broker int32, records int, err error) {
		if errors.Is(err, protocol.ErrNotEnoughReplicas) {
			mu.Lock()
			refused++
			mu.Unlock()
		}
	}}
	p, err := client.NewProducer(client.Brokers(c.Addrs()...), client.WithHooks(hooks))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close(context.Background())
	if err := c.InjectError("orders", 0, 19, 3); err != nil { // NOT_ENOUGH_REPLICAS
		log.Fatal(err)
	}
	res := p.ProduceSync(context.Background(), &client.Record{Topic: "orders", Partition: 0, HasPartition: true, Value: []byte("v")})
	mu.Lock()
	defer mu.Unlock()
	fmt.Println("written:", res.FirstErr() == nil, "refused attempts:", refused)
	// Output: written: true refused attempts: 3
}
