package kafka_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/compress"
	"github.com/rollsafe/rollsafe/confluent/kafka"
	"github.com/rollsafe/rollsafe/sim"
)

// BenchmarkProduce compares producing 100-byte values through this
// package (an Events() loop, as confluent-kafka-go programs do) with
// rollsafe's client directly, same settings (no compression, linger 5ms,
// acks=all, idempotent), into a 3-broker sim in sink mode:
//
//	go test -run '^$' -bench Produce -benchtime 200000x ./confluent/kafka/
func BenchmarkProduce(b *testing.B) {
	c, err := sim.NewCluster(sim.Brokers(3), sim.Topic("t", 6, 1), sim.SinkMode())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	value := []byte(strings.Repeat("v", 100))
	b.Run("client", func(b *testing.B) {
		p, err := client.NewProducer(client.Brokers(c.Addrs()...), client.Compression(compress.None, compress.DefaultLevel), client.Linger(5*time.Millisecond))
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close(context.Background())
		var wg sync.WaitGroup
		wg.Add(b.N)
		done := func(_ *client.Record, err error) {
			if err != nil {
				b.Error(err)
			}
			wg.Done()
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			p.Produce(context.Background(), &client.Record{Topic: "t", Value: value}, done)
		}
		wg.Wait()
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rec/s")
	})
	b.Run("confluent", func(b *testing.B) {
		p, err := kafka.NewProducer(&kafka.ConfigMap{"bootstrap.servers": strings.Join(c.Addrs(), ","), "linger.ms": 5})
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		topic := "t"
		reports := make(chan struct{})
		go func() {
			for i := 0; i < b.N; i++ {
				if m := (<-p.Events()).(*kafka.Message); m.TopicPartition.Error != nil {
					b.Error(m.TopicPartition.Error)
				}
			}
			close(reports)
		}()
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			for {
				err := p.Produce(&kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: kafka.PartitionAny}, Value: value}, nil)
				if err == nil {
					break
				}
				p.Flush(10) // ErrQueueFull: wait for deliveries
			}
		}
		<-reports
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rec/s")
	})
}
