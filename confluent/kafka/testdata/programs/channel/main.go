// Command channel produces through the deprecated channel-based producer,
// as older confluent-kafka-go programs do: every message goes into
// ProduceChannel(), and a goroutine ranging over Events() prints each
// delivery report (and any other event) until count reports came; then
// Close.
//
// Usage: channel <bootstrap.servers> <topic> <count>
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
	fmt.Printf("Created Producer %v\n", p)

	doneChan := make(chan bool)
	go func() {
		defer close(doneChan)
		reports, failed := 0, 0
		for e := range p.Events() {
			switch ev := e.(type) {
			case *kafka.Message:
				if ev.TopicPartition.Error != nil {
					fmt.Printf("Delivery failed for %s: %v\n", string(ev.Value), ev.TopicPartition.Error)
					failed++
				} else {
					fmt.Printf("Delivered %s to %v\n", string(ev.Value), ev.TopicPartition)
				}
				reports++
				if reports == count {
					doneChan <- failed == 0
					return
				}
			default:
				fmt.Printf("Ignored event: %s\n", ev)
			}
		}
	}()

	for i := 0; i < count; i++ {
		value := fmt.Sprintf("channel-%d", i)
		p.ProduceChannel() <- &kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: kafka.PartitionAny}, Value: []byte(value)}
	}

	ok := <-doneChan
	p.Close()
	if !ok {
		os.Exit(2)
	}
}
