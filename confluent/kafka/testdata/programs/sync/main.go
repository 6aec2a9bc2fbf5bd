// Command sync produces one message at a time and waits for its delivery
// report on a per-message channel before producing the next: the
// "synchronous" confluent-kafka-go producer. It checks the topic with
// GetMetadata first and prints partitions 0 and 1's watermarks at the end.
//
// Usage: sync <bootstrap.servers> <topic> <count>
package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintf(os.Stderr, "Usage: %s <bootstrap-servers> <topic> <count>\n", os.Args[0])
		os.Exit(1)
	}
	bootstrapServers := os.Args[1]
	topic := os.Args[2]
	count, _ := strconv.Atoi(os.Args[3])

	p, err := kafka.NewProducer(&kafka.ConfigMap{"bootstrap.servers": bootstrapServers})
	if err != nil {
		fmt.Printf("Failed to create producer: %s\n", err)
		os.Exit(1)
	}
	defer p.Close()

	md, err := p.GetMetadata(&topic, false, 10000)
	if err != nil {
		fmt.Printf("GetMetadata failed: %v\n", err)
		os.Exit(4)
	}
	tm := md.Topics[topic]
	if tm.Error.Code() != kafka.ErrNoError {
		fmt.Printf("Topic %s: %v\n", topic, tm.Error)
		os.Exit(4)
	}
	fmt.Printf("Topic %s has %d partitions\n", topic, len(tm.Partitions))

	deliveryChan := make(chan kafka.Event)
	for i := 0; i < count; i++ {
		value := fmt.Sprintf("sync-%d", i)
		err = p.Produce(&kafka.Message{
			TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: int32(i % 2)},
			Value:          []byte(value),
		}, deliveryChan)
		if err != nil {
			fmt.Printf("Produce failed: %v\n", err)
			os.Exit(1)
		}

		e := <-deliveryChan
		m := e.(*kafka.Message)
		if m.TopicPartition.Error != nil {
			fmt.Printf("Delivery failed for %s: %v\n", value, m.TopicPartition.Error)
			os.Exit(2)
		}
		fmt.Printf("Delivered %s to %v\n", string(m.Value), m.TopicPartition)
	}
	for partition := int32(0); partition < 2; partition++ {
		low, high, err := p.QueryWatermarkOffsets(topic, partition, 10000)
		if err != nil {
			fmt.Printf("QueryWatermarkOffsets failed: %v\n", err)
			os.Exit(4)
		}
		fmt.Printf("Watermarks %s[%d]: %d %d\n", topic, partition, low, high)
	}
	if n := p.Len(); n != 0 {
		fmt.Printf("Len() is %d after every report was read\n", n)
		os.Exit(3)
	}
}
