package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/compress"
	"github.com/rollsafe/rollsafe/sim"
)

// exampleCluster starts an in-process cluster for the examples.
func exampleCluster() *sim.Cluster {
	c, err := sim.NewCluster(sim.Brokers(3), sim.Topic("orders", 3, 3))
	if err != nil {
		log.Fatal(err)
	}
	return c
}

func Example() {
	c := exampleCluster()
	defer c.Close()

	p, err := client.NewProducer(client.Brokers(c.Addrs()...))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close(context.Background())

	ctx := context.Background()
	p.Produce(ctx, &client.Record{Topic: "orders", Key: []byte("customer-7"), Value: []byte(`{"total":42}`)},
		func(r *client.Record, err error) {
			if err != nil {
				log.Printf("not delivered: %v", err)
				return
			}
			fmt.Printf("delivered to partition %d\n", r.Partition)
		})
	if err := p.Flush(ctx); err != nil {
		log.Fatal(err)
	}
	// Output: delivered to partition 1
}

func ExampleProducer_ProduceSync() {
	c := exampleCluster()
	defer c.Close()
	p, err := client.NewProducer(client.Brokers(c.Addrs()...), client.Compression(compress.Zstd, compress.DefaultLevel))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close(context.Background())

	results := p.ProduceSync(context.Background(),
		&client.Record{Topic: "orders", Partition: 0, HasPartition: true, Value: []byte("first")},
		&client.Record{Topic: "orders", Partition: 0, HasPartition: true, Value: []byte("second")},
	)
	if err := results.FirstErr(); err != nil {
		log.Fatal(err)
	}
	for _, r := range results {
		fmt.Printf("%s at %d/%d\n", r.Record.Value, r.Record.Partition, r.Record.Offset)
	}
	// Output:
	// first at 0/0
	// second at 0/1
}

func ExampleProducer_Close() {
	c := exampleCluster()
	defer c.Close()
	p, err := client.NewProducer(client.Brokers(c.Addrs()...), client.Linger(50*time.Millisecond))
	if err != nil {
		log.Fatal(err)
	}
	p.Produce(context.Background(), &client.Record{Topic: "orders", Value: []byte("buffered")}, nil)
	// Close sends what is buffered and waits for it, up to the context's
	// deadline; records still unresolved then fail with ErrClosed.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	fmt.Println(p.Close(ctx))
	// Output: <nil>
}

func ExampleNewProducer_validation() {
	_, err := client.NewProducer(client.Brokers("127.0.0.1:9092"), client.MaxInFlight(10))
	fmt.Println(errors.Is(err, client.ErrInvalidConfig))
	fmt.Println(err)
	// Output:
	// true
	// client: invalid config: MaxInFlight: idempotence allows at most 5, got 10
}

func ExampleOnDataLoss() {
	c := exampleCluster()
	defer c.Close()
	p, err := client.NewProducer(client.Brokers(c.Addrs()...),
		client.OnDataLoss(func(d client.DataLoss) {
			// Acknowledged records vanished from the log (for example after
			// an unclean leader election). The producer carries on.
			log.Printf("ALERT: %v", d)
		}))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close(context.Background())
	fmt.Println(p.ProduceSync(context.Background(), &client.Record{Topic: "orders", Value: []byte("x")}).FirstErr())
	// Output: <nil>
}

// ProduceConnections(1) keeps one produce connection per broker, as Java's
// producer, kgo and librdkafka do; the default two let a broker handle two
// of the producer's requests at once. Either way a partition's batches go
// out on one connection, in order. Here the brokers' own record shows the
// connections the six partitions' batches came on.
func ExampleProduceConnections() {
	c, err := sim.NewCluster(sim.Brokers(1), sim.Topic("orders", 6, 1))
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	for _, n := range []int{1, 2} {
		c.Recorder().Reset()
		p, err := client.NewProducer(client.Brokers(c.Addrs()...), client.ProduceConnections(n))
		if err != nil {
			log.Fatal(err)
		}
		var recs []*client.Record
		for part := range int32(6) {
			recs = append(recs, &client.Record{Topic: "orders", Partition: part, HasPartition: true, Value: []byte("x")})
		}
		if err := p.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
			log.Fatal(err)
		}
		_ = p.Close(context.Background())
		conns := map[uint64]int{}
		for _, pr := range c.Recorder().Produces() {
			conns[pr.Conn]++
		}
		fmt.Printf("ProduceConnections(%d): partitions' batches on %d connection(s)\n", n, len(conns))
	}
	// Output:
	// ProduceConnections(1): partitions' batches on 1 connection(s)
	// ProduceConnections(2): partitions' batches on 2 connection(s)
}

func ExampleProducer_Metadata() {
	c := exampleCluster()
	defer c.Close()
	p, err := client.NewProducer(client.Brokers(c.Addrs()...))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close(context.Background())

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	md, err := p.Metadata(ctx, "orders", "invoices")
	if err != nil {
		log.Fatal(err) // no broker answered
	}
	fmt.Printf("%d brokers\n", len(md.Brokers))
	for _, t := range md.Topics {
		if errors.Is(t.Err, client.ErrUnknownTopic) {
			fmt.Printf("%s: no such topic\n", t.Topic)
			continue
		}
		for _, pt := range t.Partitions {
			fmt.Printf("%s[%d]: leader %d, in sync %d of %d\n", t.Topic, pt.Partition, pt.Leader, len(pt.ISR), len(pt.Replicas))
		}
	}
	// Output:
	// 3 brokers
	// invoices: no such topic
	// orders[0]: leader 0, in sync 3 of 3
	// orders[1]: leader 1, in sync 3 of 3
	// orders[2]: leader 2, in sync 3 of 3
}

func ExampleProducer_Watermarks() {
	c := exampleCluster()
	defer c.Close()
	p, err := client.NewProducer(client.Brokers(c.Addrs()...))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close(context.Background())

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for i := range 3 {
		r := &client.Record{Topic: "orders", Partition: 2, HasPartition: true,
			Value: fmt.Appendf(nil, "order %d", i), Timestamp: start.Add(time.Duration(i) * time.Hour)}
		if err := p.ProduceSync(ctx, r).FirstErr(); err != nil {
			log.Fatal(err)
		}
	}
	low, high, err := p.Watermarks(ctx, "orders", 2)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("orders[2] holds offsets %d to %d\n", low, high-1)
	off, err := p.OffsetForTime(ctx, "orders", 2, start.Add(90*time.Minute))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("first record from 10:30: offset %d\n", off)
	// Output:
	// orders[2] holds offsets 0 to 2
	// first record from 10:30: offset 2
}
