package kafka_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/confluent/kafka"
	"github.com/rollsafe/rollsafe/sim"
)

// exampleBrokers starts an in-process 3-broker cluster holding topic
// "orders" (3 partitions) for the examples, and returns its bootstrap list
// and a function stopping it. A program gives its own brokers instead,
// e.g. "kafka-1:9092,kafka-2:9092".
func exampleBrokers() (string, func()) {
	c, err := sim.NewCluster(sim.Brokers(3), sim.Topic("orders", 3, 3))
	if err != nil {
		panic(err)
	}
	return strings.Join(c.Addrs(), ","), func() { _ = c.Close() }
}

// A confluent-kafka-go producer: only the import line differs. A property
// rollsafe has no equivalent for is refused by name.
func ExampleNewProducer() {
	brokers, stop := exampleBrokers()
	defer stop()

	p, err := kafka.NewProducer(&kafka.ConfigMap{
		"bootstrap.servers":  brokers,
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
	fmt.Println("created")
	p.Close()

	_, err = kafka.NewProducer(&kafka.ConfigMap{"bootstrap.servers": brokers, "retries": 0})
	fmt.Println(err.(kafka.Error).Code() == kafka.ErrInvalidArg)
	// Output:
	// created
	// true
}

// The Events() loop: delivery reports and errors on one channel, Flush
// before Close.
func ExampleProducer_Produce() {
	brokers, stop := exampleBrokers()
	defer stop()

	p, err := kafka.NewProducer(&kafka.ConfigMap{"bootstrap.servers": brokers})
	if err != nil {
		panic(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for e := range p.Events() { // closed by Close
			switch ev := e.(type) {
			case *kafka.Message:
				if ev.TopicPartition.Error != nil {
					fmt.Printf("Delivery failed: %v\n", ev.TopicPartition)
				} else {
					fmt.Printf("Delivered %s to %v\n", ev.Value, ev.TopicPartition)
				}
			case kafka.Error:
				fmt.Printf("Error: %v\n", ev)
			}
		}
	}()
	topic := "orders"
	for _, word := range []string{"Welcome", "to", "the", "Confluent", "Kafka", "Golang", "client"} {
		err := p.Produce(&kafka.Message{
			TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: 0},
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
	<-done
	// Output:
	// Delivered Welcome to orders[0]@0
	// Delivered to to orders[0]@1
	// Delivered the to orders[0]@2
	// Delivered Confluent to orders[0]@3
	// Delivered Kafka to orders[0]@4
	// Delivered Golang to orders[0]@5
	// Delivered client to orders[0]@6
}

// Synchronous produce: one delivery channel per call, read at once. The
// default partitioner (librdkafka's consistent_random) puts a key where
// librdkafka puts it.
func ExampleProducer_Produce_deliveryChannel() {
	brokers, stop := exampleBrokers()
	defer stop()

	p, err := kafka.NewProducer(&kafka.ConfigMap{"bootstrap.servers": brokers})
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
	// Output: Delivered to orders[2]@0
}

// What rollsafe knows about a failed message: whether producing it again
// could write a duplicate. Here the first message is purged from the
// queue before it was sent.
func ExampleMessage_Status() {
	brokers, stop := exampleBrokers()
	defer stop()

	report := func(m *kafka.Message) {
		err := m.TopicPartition.Error
		switch m.Status() {
		case kafka.MsgStatusPersisted:
			fmt.Println("written at", m.TopicPartition)
		case kafka.MsgStatusNotPersisted:
			// errors.Is(err, client.ErrNotWritten) says the same.
			fmt.Println("certainly not written, safe to produce again:", errors.Is(err, client.ErrNotWritten))
		case kafka.MsgStatusPossiblyPersisted:
			fmt.Println("may be in the log; producing it again may duplicate it:", err)
		}
	}

	p, err := kafka.NewProducer(&kafka.ConfigMap{"bootstrap.servers": brokers, "linger.ms": 60000})
	if err != nil {
		panic(err)
	}
	defer p.Close()
	topic := "orders"
	reports := make(chan kafka.Event, 2)
	produce := func(v string) {
		m := &kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: 1}, Value: []byte(v)}
		if err := p.Produce(m, reports); err != nil {
			panic(err)
		}
	}
	produce("purged") // lingers for a minute
	if err := p.Purge(kafka.PurgeQueue); err != nil {
		panic(err)
	}
	report((<-reports).(*kafka.Message))
	produce("sent")
	p.Flush(10000) // sends it at once, linger or not
	report((<-reports).(*kafka.Message))
	// Output:
	// certainly not written, safe to produce again: true
	// written at orders[1]@0
}

// Statistics in librdkafka's JSON on Events(), here every 100 ms.
func ExampleStats() {
	brokers, stop := exampleBrokers()
	defer stop()

	p, err := kafka.NewProducer(&kafka.ConfigMap{"bootstrap.servers": brokers, "statistics.interval.ms": 100})
	if err != nil {
		panic(err)
	}
	defer p.Close()
	topic := "orders"
	for i := range 10 {
		m := &kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: kafka.PartitionAny}, Value: fmt.Appendf(nil, "event %d", i)}
		if err := p.Produce(m, nil); err != nil {
			panic(err)
		}
	}
	for e := range p.Events() {
		s, ok := e.(*kafka.Stats)
		if !ok {
			continue // the delivery reports
		}
		var stats struct {
			MsgCnt int64 `json:"msg_cnt"`
			TxMsgs int64 `json:"txmsgs"`
		}
		if err := json.Unmarshal([]byte(s.String()), &stats); err != nil {
			panic(err)
		}
		if stats.MsgCnt == 0 && stats.TxMsgs == 10 {
			fmt.Printf("queued %d, sent %d\n", stats.MsgCnt, stats.TxMsgs)
			break
		}
	}
	// Output: queued 0, sent 10
}

// Checking a topic at start-up, as confluent-kafka-go programs do.
func ExampleProducer_GetMetadata() {
	brokers, stop := exampleBrokers()
	defer stop()

	p, err := kafka.NewProducer(&kafka.ConfigMap{"bootstrap.servers": brokers})
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
	tm := md.Topics[topic]
	if tm.Error.Code() != kafka.ErrNoError {
		fmt.Printf("Topic %s: %v\n", topic, tm.Error) // ErrUnknownTopicOrPart: not created
		return
	}
	fmt.Printf("%s: %d partitions\n", topic, len(tm.Partitions))
	low, high, err := p.QueryWatermarkOffsets(topic, 0, 10000)
	if err == nil {
		fmt.Printf("%s[0]: low %d, high %d\n", topic, low, high)
	}
	// Output:
	// orders: 3 partitions
	// orders[0]: low 0, high 0
}
