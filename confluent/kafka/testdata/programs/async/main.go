// Command async is a confluent-kafka-go producer as its users write it:
// every message is produced asynchronously with one shared delivery channel
// that a goroutine drains, then the program waits for the last report.
//
// Usage: async <bootstrap.servers> <topic> <count>
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

	p, err := kafka.NewProducer(&kafka.ConfigMap{
		"bootstrap.servers":  bootstrapServers,
		"enable.idempotence": true,
		"acks":               "all",
		"linger.ms":          5,
		"compression.type":   "snappy",
	})
	if err != nil {
		fmt.Printf("Failed to create producer: %s\n", err)
		os.Exit(1)
	}
	fmt.Printf("Created Producer %v\n", p)

	deliveryChan := make(chan kafka.Event, 10000)
	done := make(chan bool)
	go func() {
		failed := 0
		for i := 0; i < count; i++ {
			e := <-deliveryChan
			m := e.(*kafka.Message)
			if m.TopicPartition.Error != nil {
				fmt.Printf("Delivery failed for %s: %v\n", string(m.Value), m.TopicPartition.Error)
				failed++
			} else {
				fmt.Printf("Delivered %s to %v\n", string(m.Value), m.TopicPartition)
			}
		}
		done <- failed == 0
	}()

	for i := 0; i < count; i++ {
		value := fmt.Sprintf("async-%d", i)
		err = p.Produce(&kafka.Message{
			TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: kafka.PartitionAny},
			Value:          []byte(value),
		}, deliveryChan)
		if err != nil {
			fmt.Printf("Produce failed: %v\n", err)
			os.Exit(1)
		}
	}

	ok := <-done
	p.Close()
	if !ok {
		os.Exit(2)
	}
}
