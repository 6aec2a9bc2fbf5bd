// Command events is the confluent-kafka-go producer most programs start
// from: delivery reports and errors are read from the Events() channel,
// Produce is retried after a Flush when the local queue is full, and
// Flush(15000) waits for the rest before Close.
//
// Usage: events <bootstrap.servers> <topic> <count>
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
		"bootstrap.servers":            bootstrapServers,
		"client.id":                    "events-example",
		"enable.idempotence":           true,
		"queue.buffering.max.messages": 500,
		"message.timeout.ms":           60000,
	})
	if err != nil {
		fmt.Printf("Failed to create producer: %s\n", err)
		os.Exit(1)
	}

	// Delivery report handler for produced messages
	failed := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		for e := range p.Events() {
			switch ev := e.(type) {
			case *kafka.Message:
				if ev.TopicPartition.Error != nil {
					fmt.Printf("Delivery failed for %s: %v\n", string(ev.Value), ev.TopicPartition.Error)
					failed++
				} else {
					fmt.Printf("Delivered %s to %v\n", string(ev.Value), ev.TopicPartition)
				}
			case kafka.Error:
				// Generic client instance-level errors, such as
				// broker connection failures, authentication issues, etc.
				fmt.Printf("Error: %v\n", ev)
				if ev.IsFatal() {
					fmt.Printf("Fatal error: %v\n", ev)
				}
			default:
				fmt.Printf("Ignored event: %s\n", ev)
			}
		}
	}()

	queueFull := 0
	for i := 0; i < count; i++ {
		value := fmt.Sprintf("events-%d", i)
		for {
			err = p.Produce(&kafka.Message{
				TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: kafka.PartitionAny},
				Value:          []byte(value),
				Headers:        []kafka.Header{{Key: "example", Value: []byte("header values are binary")}},
			}, nil)
			if err == nil {
				break
			}
			if err.(kafka.Error).Code() == kafka.ErrQueueFull {
				// Producer queue is full, wait 1s for messages
				// to be delivered then try again.
				queueFull++
				p.Flush(1000)
				continue
			}
			fmt.Printf("Failed to produce message: %v\n", err)
			os.Exit(1)
		}
	}

	// Flush and close the producer and the events channel
	for p.Flush(15000) > 0 {
		fmt.Print("Still waiting to flush outstanding messages\n")
	}
	if err := p.GetFatalError(); err != nil {
		fmt.Printf("Fatal error: %v\n", err)
		os.Exit(3)
	}
	fmt.Printf("Queue full %d times\n", queueFull)
	p.Close()
	<-done
	if failed > 0 {
		os.Exit(2)
	}
}
