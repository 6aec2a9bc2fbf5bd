package client_test

import (
	"context"
	"fmt"
	"hash/fnv"
	"log"
	"time"

	"github.com/rollsafe/rollsafe/client"
)

// Records go to the partitions of "orders" in turn, keyed or not.
func ExampleRoundRobinPartitioner() {
	c := exampleCluster()
	defer c.Close()
	p, err := client.NewProducer(client.Brokers(c.Addrs()...), client.WithPartitioner(client.RoundRobinPartitioner()))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close(context.Background())
	var rs []*client.Record
	for i := range 6 {
		rs = append(rs, &client.Record{Topic: "orders", Key: []byte("same-key"), Value: fmt.Appendf(nil, "v%d", i)})
	}
	if err := p.ProduceSync(context.Background(), rs...).FirstErr(); err != nil {
		log.Fatal(err)
	}
	for _, r := range rs {
		fmt.Print(r.Partition, " ")
	}
	fmt.Println()
	// Output: 0 1 2 0 1 2
}

// Keyed records are placed by FNV-1a (as Sarama's hash partitioner does
// for non-negative hashes) instead of murmur2; unkeyed ones stay sticky.
func ExampleStickyKeyPartitioner() {
	c := exampleCluster()
	defer c.Close()
	part := client.StickyKeyPartitioner(client.KeyHash32(fnv.New32a))
	p, err := client.NewProducer(client.Brokers(c.Addrs()...), client.WithPartitioner(part))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close(context.Background())
	r := &client.Record{Topic: "orders", Key: []byte("customer-7"), Value: []byte(`{"total":42}`)}
	if err := p.ProduceSync(context.Background(), r).FirstErr(); err != nil {
		log.Fatal(err)
	}
	h := fnv.New32a()
	h.Write([]byte("customer-7"))
	fmt.Println(r.Partition, r.Partition == int32(h.Sum32()%3))
	// Output: 0 true
}

// Records go to the partition with the fewest records outstanding: here
// partition 0 holds three unresolved records when the fourth is placed,
// so it goes to partition 1 or 2.
func ExampleLeastBackupPartitioner() {
	c := exampleCluster()
	defer c.Close()
	p, err := client.NewProducer(client.Brokers(c.Addrs()...), client.WithPartitioner(client.LeastBackupPartitioner()))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close(context.Background())
	ctx := context.Background()
	if err := c.DelayProcessing("orders", 0, 1, 200*time.Millisecond); err != nil { // partition 0's next append waits 200ms
		log.Fatal(err)
	}
	for i := range 3 {
		p.Produce(ctx, &client.Record{Topic: "orders", Partition: 0, HasPartition: true, Value: fmt.Appendf(nil, "slow-%d", i)}, nil)
	}
	r := &client.Record{Topic: "orders", Value: []byte("placed")}
	if err := p.ProduceSync(ctx, r).FirstErr(); err != nil {
		log.Fatal(err)
	}
	fmt.Println(r.Partition != 0)
	// Output: true
}
