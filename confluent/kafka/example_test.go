package kafka_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/confluent/kafka"
)

// A confluent-kafka-go producer: only the import line differs.
func ExampleNewProducer() {
	p, err := kafka.NewProducer(&kafka.ConfigMap{
		"bootstrap.servers":  "kafka-1:9092,kafka-2:9092",
		"enable.idempotence": true,
		"acks":               "all",
		"compression.type":   "lz4",
		"linger.ms":          10,
	})
	if err != nil {
		// An unknown or refused property is named here, e.g.
		// No such configuration property: "no.such.property" (…)
		fmt.Println(err)
		return
	}
	defer p.Close()
}

// The Events() loop: delivery reports and errors on one channel, Flush
// before Close.
func ExampleProducer_Produce() {
	p, err := kafka.NewProducer(&kafka.ConfigMap{"bootstrap.servers": "localhost:9092"})
	if err != nil {
		panic(err)
	}
	go func() {
		for e := range p.Events() {
			switch ev := e.(type) {
			case *kafka.Message:
				if ev.TopicPartition.Error != nil {
					fmt.Printf("Delivery failed: %v\n", ev.TopicPartition)
				} else {
					fmt.Printf("Delivered message to %v\n", ev.TopicPartition)
				}
			case kafka.Error:
				fmt.Printf("Error: %v\n", ev)
			}
		}
	}()
	topic := "orders"
	for _, word := range []string{"Welcome", "to", "the", "Confluent", "Kafka", "Golang", "client"} {
		err := p.Produce(&kafka.Message{
			TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: kafka.PartitionAny},
			Value:          []byte(word),
		}, nil)
		if err != nil && err.(kafka.Error).Code() == kafka.ErrQueueFull {
			p.Flush(1000) // the queue is full: wait for deliveries, then retry
		}
	}
	for p.Flush(15000) > 0 {
		fmt.Println("Still waiting to flush outstanding messages")
	}
	p.Close()
}

// Synchronous produce: one delivery channel per call, read at once.
func ExampleProducer_Produce_deliveryChannel() {
	p, err := kafka.NewProducer(&kafka.ConfigMap{"bootstrap.servers": "localhost:9092"})
	if err != nil {
		panic(err)
	}
	defer p.Close()
	topic := "orders"
	deliveryChan := make(chan kafka.Event)
	err = p.Produce(&kafka.Message{
		TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: kafka.PartitionAny},
		Key:            []byte("customer-42"),
		Value:          []byte(`{"total": 12.5}`),
		Headers:        []kafka.Header{{Key: "trace-id", Value: []byte("abc")}},
	}, deliveryChan)
	if err != nil {
		panic(err)
	}
	m := (<-deliveryChan).(*kafka.Message)
	if m.TopicPartition.Error != nil {
		fmt.Printf("Delivery failed: %v\n", m.TopicPartition.Error)
		return
	}
	fmt.Printf("Delivered to %v\n", m.TopicPartition)
}

// What rollsafe knows about a failed message: whether producing it again
// could write a duplicate.
func ExampleMessage_Status() {
	report := func(m *kafka.Message) {
		err := m.TopicPartition.Error
		switch m.Status() {
		case kafka.MsgStatusPersisted:
			fmt.Println("written at", m.TopicPartition)
		case kafka.MsgStatusNotPersisted:
			// errors.Is(err, client.ErrNotWritten) says the same.
			fmt.Println("certainly not written, safe to produce again:", err, errors.Is(err, client.ErrNotWritten))
		case kafka.MsgStatusPossiblyPersisted:
			fmt.Println("may be in the log; producing it again may duplicate it:", err)
		}
	}
	_ = report
}

// Statistics in librdkafka's JSON, every second.
func ExampleStats() {
	p, err := kafka.NewProducer(&kafka.ConfigMap{"bootstrap.servers": "localhost:9092", "statistics.interval.ms": 1000})
	if err != nil {
		panic(err)
	}
	defer p.Close()
	for e := range p.Events() {
		if s, ok := e.(*kafka.Stats); ok {
			var stats struct {
				MsgCnt int64 `json:"msg_cnt"`
				TxMsgs int64 `json:"txmsgs"`
			}
			if err := json.Unmarshal([]byte(s.String()), &stats); err == nil {
				fmt.Printf("queued %d, sent %d\n", stats.MsgCnt, stats.TxMsgs)
			}
		}
	}
}

// Checking a topic at start-up, as confluent-kafka-go programs do.
func ExampleProducer_GetMetadata() {
	p, err := kafka.NewProducer(&kafka.ConfigMap{"bootstrap.servers": "localhost:9092"})
	if err != nil {
		panic(err)
	}
	defer p.Close()
	topic := "orders"
	md, err := p.GetMetadata(&topic, false, 10000)
	if err != nil {
		// ErrTransport: no broker reachable; ErrTimedOut: none answered.
		fmt.Printf("Metadata: %v\n", err)
		return
	}
	if tm := md.Topics[topic]; tm.Error.Code() != kafka.ErrNoError {
		fmt.Printf("Topic %s: %v\n", topic, tm.Error) // ErrUnknownTopicOrPart: not created
		return
	}
	low, high, err := p.QueryWatermarkOffsets(topic, 0, 10000)
	if err == nil {
		fmt.Printf("%s[0] holds offsets %d..%d\n", topic, low, high-1)
	}
}
