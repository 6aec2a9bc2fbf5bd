// Command sync produces one message at a time and waits for its delivery
// report on a per-message channel before producing the next: the
// "synchronous" confluent-kafka-go producer.
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
	if n := p.Len(); n != 0 {
		fmt.Printf("Len() is %d after every report was read\n", n)
		os.Exit(3)
	}
}
