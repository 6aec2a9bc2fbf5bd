// Command lines produces each line of its standard input as one message to
// a partition, like `kcat -P -p <partition>`, with the idempotent producer,
// and stops at the first fatal error, as kcat does.
//
// Usage: lines <bootstrap.servers> <topic> <partition> < input
package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintf(os.Stderr, "Usage: %s <bootstrap-servers> <topic> <partition>\n", os.Args[0])
		os.Exit(1)
	}
	topic := os.Args[2]
	partition, _ := strconv.Atoi(os.Args[3])

	p, err := kafka.NewProducer(&kafka.ConfigMap{
		"bootstrap.servers":  os.Args[1],
		"enable.idempotence": true,
		"acks":               "all",
		"linger.ms":          5,
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "Failed to create producer: %s\n", err)
		os.Exit(1)
	}

	failed := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		for e := range p.Events() {
			switch ev := e.(type) {
			case *kafka.Message:
				if ev.TopicPartition.Error != nil {
					fmt.Fprintf(os.Stderr, "Delivery failed for %s: %v\n", ev.Value, ev.TopicPartition.Error)
					failed++
				} else {
					fmt.Printf("Delivered %s to %v\n", ev.Value, ev.TopicPartition)
				}
			case kafka.Error:
				fmt.Fprintf(os.Stderr, "%% ERROR: %v\n", ev)
				if ev.IsFatal() {
					os.Exit(1)
				}
			}
		}
	}()

	scanner := bufio.NewScanner(os.Stdin)
	for scanner.Scan() {
		value := append([]byte(nil), scanner.Bytes()...)
		for {
			err := p.Produce(&kafka.Message{
				TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: int32(partition)},
				Value:          value,
			}, nil)
			if err == nil {
				break
			}
			if kerr, ok := err.(kafka.Error); ok && kerr.Code() == kafka.ErrQueueFull {
				p.Flush(100)
				continue
			}
			fmt.Fprintf(os.Stderr, "%% ERROR: Failed to produce message (%d bytes): %v\n", len(value), err)
			os.Exit(1)
		}
	}

	for p.Flush(30000) > 0 {
		fmt.Fprintln(os.Stderr, "Still waiting to flush outstanding messages")
	}
	if err := p.GetFatalError(); err != nil {
		fmt.Fprintf(os.Stderr, "%% ERROR: %v\n", err)
		os.Exit(1)
	}
	p.Close()
	<-done
	if failed > 0 {
		os.Exit(2)
	}
}
