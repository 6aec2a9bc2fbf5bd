// Command fatal is an idempotent producer that handles fatal errors the
// way confluent-kafka-go's documentation asks: it serves Events() for
// delivery reports and Error events, stops producing on an Error with
// IsFatal(), and exits after Flush with what GetFatalError says. It
// raises the fatal error itself with TestFatalError once count messages
// are delivered, checks that Produce is then refused, and prints the
// library version and the partitions it wrote to (TopicPartitions,
// sorted, with their next offsets as Offset values).
//
// Usage: fatal <bootstrap.servers> <topic> <count>
package main

import (
	"fmt"
	"os"
	"sort"
	"strconv"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintf(os.Stderr, "Usage: %s <bootstrap-servers> <topic> <count>\n", os.Args[0])
		os.Exit(1)
	}
	bootstrapServers, topic := os.Args[1], os.Args[2]
	count, _ := strconv.Atoi(os.Args[3])

	ver, verStr := kafka.LibraryVersion()
	fmt.Printf("librdkafka version %s (0x%x)\n", verStr, ver)

	p, err := kafka.NewProducer(&kafka.ConfigMap{
		"bootstrap.servers":  bootstrapServers,
		"enable.idempotence": true,
	})
	if err != nil {
		fmt.Printf("Failed to create producer: %s\n", err)
		os.Exit(1)
	}

	delivered := make(chan int)
	fatal := make(chan kafka.Error, 1)
	done := make(chan struct{})
	next := map[int32]kafka.Offset{} // per partition: the offset after the last delivered
	go func() {
		defer close(done)
		n := 0
		for e := range p.Events() {
			switch ev := e.(type) {
			case *kafka.Message:
				if ev.TopicPartition.Error != nil {
					fmt.Printf("Delivery failed: %v\n", ev.TopicPartition.Error)
					continue
				}
				fmt.Printf("Delivered %s to %s[%d]@%d\n", ev.Value, *ev.TopicPartition.Topic, ev.TopicPartition.Partition, ev.TopicPartition.Offset)
				var o kafka.Offset
				if err := o.Set(int64(ev.TopicPartition.Offset) + 1); err != nil {
					fmt.Printf("Offset.Set: %v\n", err)
				}
				next[ev.TopicPartition.Partition] = o
				n++
				if n == count {
					delivered <- n
				}
			case kafka.Error:
				if ev.IsFatal() {
					fmt.Printf("FATAL ERROR: %v: terminating\n", ev)
					fatal <- ev
					return
				}
				fmt.Printf("Error: %v\n", ev)
			}
		}
	}()

	for i := 0; i < count; i++ {
		value := fmt.Sprintf("fatal-%d", i)
		err := p.Produce(&kafka.Message{
			TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: kafka.PartitionAny},
			Value:          []byte(value),
		}, nil)
		if err != nil {
			fmt.Printf("Failed to produce message: %v\n", err)
			os.Exit(1)
		}
	}
	<-delivered

	if code := p.TestFatalError(kafka.ErrOutOfOrderSequenceNumber, "Testing fatal errors"); code != kafka.ErrNoError {
		fmt.Printf("TestFatalError: %v\n", code)
		os.Exit(1)
	}
	fe := <-fatal
	<-done
	err = p.Produce(&kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: kafka.PartitionAny}, Value: []byte("after")}, nil)
	if err == nil || err.(kafka.Error).Code() != kafka.ErrFatal {
		fmt.Printf("Produce after the fatal error: %v, want %v\n", err, kafka.ErrFatal)
		os.Exit(1)
	}
	p.Flush(15 * 1000)
	fatalErr := p.GetFatalError()
	if fatalErr == nil || fatalErr.(kafka.Error).Code() != fe.Code() || !fatalErr.(kafka.Error).IsFatal() {
		fmt.Printf("GetFatalError: %v, want %v\n", fatalErr, fe)
		os.Exit(1)
	}
	fmt.Printf("GetFatalError: %v (code %d)\n", fatalErr, fe.Code())

	var tps kafka.TopicPartitions
	for part, o := range next {
		tps = append(tps, kafka.TopicPartition{Topic: &topic, Partition: part, Offset: o})
	}
	sort.Sort(tps)
	for _, tp := range tps {
		fmt.Printf("Next %s\n", tp)
	}
	end, _ := kafka.NewOffset("latest")
	fmt.Printf("Logical offsets: %s %s\n", end, kafka.OffsetTail(5))
	p.Close()
	os.Exit(0)
}
