// Command keyed produces keyed messages with headers and an Opaque per
// message, the way event-sourcing programs use confluent-kafka-go: the key
// (a user id) chooses the partition with the Java client's murmur2, so
// every user's events stay in order on one partition.
//
// Usage: keyed <bootstrap.servers> <topic> <count>
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
)

type event struct {
	user string
	seq  int
}

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintf(os.Stderr, "Usage: %s <bootstrap-servers> <topic> <count>\n", os.Args[0])
		os.Exit(1)
	}
	bootstrapServers := os.Args[1]
	topic := os.Args[2]
	count, _ := strconv.Atoi(os.Args[3])

	config := &kafka.ConfigMap{}
	config.SetKey("bootstrap.servers", bootstrapServers)
	config.SetKey("acks", "all")
	config.SetKey("enable.idempotence", "true")
	config.SetKey("compression.type", "lz4")
	config.SetKey("batch.size", 65536)
	config.SetKey("{topic}.partitioner", "murmur2_random")
	config.SetKey("go.delivery.report.fields", "key,value,headers")
	p, err := kafka.NewProducer(config)
	if err != nil {
		fmt.Printf("Failed to create producer: %s\n", err)
		os.Exit(1)
	}

	start := time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)
	for i := 0; i < count; i++ {
		user := fmt.Sprintf("user-%d", i%7)
		err := p.Produce(&kafka.Message{
			TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: kafka.PartitionAny},
			Key:            []byte(user),
			Value:          []byte(fmt.Sprintf("keyed-%d", i)),
			Timestamp:      start.Add(time.Duration(i) * time.Millisecond),
			Headers: []kafka.Header{
				{Key: "seq", Value: []byte(strconv.Itoa(i))},
				{Key: "source", Value: []byte("keyed-example")},
				{Key: "empty", Value: nil},
			},
			Opaque: event{user: user, seq: i},
		}, nil)
		if err != nil {
			fmt.Printf("Produce failed: %v\n", err)
			os.Exit(1)
		}
	}

	bad := 0
	for seen := 0; seen < count; {
		e := <-p.Events()
		m, ok := e.(*kafka.Message)
		if !ok {
			fmt.Printf("Event: %v\n", e)
			continue
		}
		seen++
		ev := m.Opaque.(event)
		if m.TopicPartition.Error != nil {
			fmt.Printf("Delivery failed for %s: %v\n", string(m.Value), m.TopicPartition.Error)
			bad++
			continue
		}
		if string(m.Key) != ev.user || len(m.Headers) != 3 || string(m.Headers[0].Value) != strconv.Itoa(ev.seq) {
			fmt.Printf("Report for %s does not match what was produced: key %q headers %v\n", string(m.Value), m.Key, m.Headers)
			bad++
		}
		fmt.Printf("Delivered %s to %v\n", string(m.Value), m.TopicPartition)
	}
	if remaining := p.Flush(10000); remaining != 0 {
		fmt.Printf("%d messages still outstanding\n", remaining)
		bad++
	}
	p.Close()
	if bad > 0 {
		os.Exit(2)
	}
}
