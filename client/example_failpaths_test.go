package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/rollsafe/rollsafe/client"
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
