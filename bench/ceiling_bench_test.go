package bench

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/batching"
	"github.com/rollsafe/rollsafe/batching/fixture"
	"github.com/rollsafe/rollsafe/compress"
	"github.com/rollsafe/rollsafe/protocol"
)

// BenchmarkBrokerCeiling measures how many records per second a broker
// child of BenchmarkProduce can take when the client does no per-record
// work at all: the fixture records are encoded (and compressed) once into
// one ~1 MiB batch per partition before the timer starts, and the timed
// loop only writes produce requests carrying those same bytes (one batch
// per partition per request, acks=all, not idempotent, so the same batch
// may be written again) on one connection per broker, five in flight like
// the clients, until b.N records are acknowledged. What it still spends per
// record is the socket write.
//
// A client cannot be faster than this ceiling on the same machine, so it
// bounds every rec/s ratio between two clients in a cell: if kgo reaches
// 85 % of the ceiling, no client can be 1.2× kgo there.
//
//	cd bench && go test -run '^$' -bench 'BenchmarkBrokerCeiling/broker=kfake$/codec=none$/size=1KB' -benchtime 1600000x
func BenchmarkBrokerCeiling(b *testing.B) {
	procs := brokerProcs{}
	defer procs.stop(b)
	forEachCell(func(spec brokerSpec, name string, codec compress.Codec, size int) {
		b.Run(fmt.Sprintf("broker=%s/codec=%s/size=%s", name, codec, sizeName(size)),
			func(b *testing.B) { benchCeiling(b, procs.get(b, spec), codec, eventRing(size)) })
	})
}

// ceilingBatch is one pre-encoded batch and its record count.
type ceilingBatch struct {
	bytes   []byte
	records int
}

// ceilingBatches encodes one full batch per partition of ring's records
// (partition p gets records p, p+partitions, ...) with rollsafe's batching
// package, not idempotent.
func ceilingBatches(codec compress.Codec, ring []fixture.Event) ([]ceilingBatch, error) {
	var (
		mu  sync.Mutex
		out = make([]ceilingBatch, peersPartitions)
	)
	var acc *batching.Accumulator
	acc, err := batching.NewAccumulator(batching.Config{Codec: codec, Linger: -1}, func(bt *batching.Batch) {
		mu.Lock()
		defer mu.Unlock()
		if p := bt.TP.Partition; out[p].bytes == nil {
			out[p] = ceilingBatch{bytes: append([]byte(nil), bt.Bytes()...), records: bt.Records}
		}
		acc.Release(bt)
	})
	if err != nil {
		return nil, err
	}
	defer acc.Close()
	ctx := context.Background()
	for i := range ring {
		ev := &ring[i]
		tp := batching.TopicPartition{Topic: peersTopic, Partition: int32(i % peersPartitions)}
		if err := acc.Append(ctx, tp, &batching.Record{Key: ev.Key, Value: ev.Value, Timestamp: ev.Timestamp}, nil); err != nil {
			return nil, err
		}
	}
	acc.Flush()
	if err := acc.Drain(ctx); err != nil {
		return nil, err
	}
	for p, cb := range out {
		if cb.bytes == nil {
			return nil, fmt.Errorf("%w: partition %d", errNoCeilingBatch, p)
		}
	}
	return out, nil
}

var errNoCeilingBatch = errors.New("bench: no batch encoded")

// ceiling is BenchmarkBrokerCeiling's client: lanes connections per broker
// (one in BenchmarkBrokerCeiling; broker i leading the partitions p with p
// mod brokers == i, as startCluster and a one-broker cluster place them)
// and one pre-encoded batch per partition. Connection j goes to broker
// j mod brokers and carries the partitions p with p mod len(conns) == j,
// which that broker leads.
type ceiling struct {
	conns   []*protocol.Conn
	batches []ceilingBatch
}

func newCeiling(ctx context.Context, addrs []string, lanes int, codec compress.Codec, ring []fixture.Event) (*ceiling, error) {
	batches, err := ceilingBatches(codec, ring)
	if err != nil {
		return nil, err
	}
	c := &ceiling{batches: batches}
	for _, addr := range slices.Repeat(addrs, max(lanes, 1)) {
		conn, err := protocol.Dial(ctx, addr, protocol.ConnConfig{ClientID: "bench-ceiling", MaxInFlight: 5})
		if err != nil {
			c.close()
			return nil, err
		}
		c.conns = append(c.conns, conn)
	}
	return c, nil
}

func (c *ceiling) close() {
	for _, conn := range c.conns {
		conn.Close()
	}
}

// request is the produce request of broker's partitions, one batch each,
// and its record count.
func (c *ceiling) request(broker int) (*kmsg.ProduceRequest, int) {
	req := kmsg.NewPtrProduceRequest()
	req.Acks = -1
	req.TimeoutMillis = 30000
	t := kmsg.NewProduceRequestTopic()
	t.Topic = peersTopic
	n := 0
	for p := broker; p < peersPartitions; p += len(c.conns) {
		pr := kmsg.NewProduceRequestTopicPartition()
		pr.Partition = int32(p)
		pr.Records = c.batches[p].bytes
		t.Partitions = append(t.Partitions, pr)
		n += c.batches[p].records
	}
	req.Topics = append(req.Topics, t)
	return req, n
}

// produce writes requests, five in flight per broker, until at least
// total records are written, waits for every answer and returns the
// records acknowledged.
func (c *ceiling) produce(ctx context.Context, total int64) (int64, error) {
	var (
		acked   atomic.Int64
		firstMu sync.Mutex
		first   error
		wg      sync.WaitGroup
	)
	fail := func(err error) {
		firstMu.Lock()
		if first == nil {
			first = err
		}
		firstMu.Unlock()
	}
	for broker := range c.conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var inflight sync.WaitGroup
			want := total / int64(len(c.conns))
			for written := int64(0); written < want && ctx.Err() == nil; {
				req, n := c.request(broker)
				inflight.Add(1)
				err := c.conns[broker].Send(ctx, req, func(resp kmsg.Response, err error) {
					defer inflight.Done()
					if err == nil {
						err = produceError(resp.(*kmsg.ProduceResponse))
					}
					if err != nil {
						fail(err)
						return
					}
					acked.Add(int64(n))
				})
				if err != nil {
					inflight.Done()
					fail(err)
					break
				}
				written += int64(n)
			}
			inflight.Wait()
		}()
	}
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		first = ctx.Err()
	}
	return acked.Load(), first
}

// benchCeiling writes pre-encoded requests to bp until b.N records are
// acknowledged.
func benchCeiling(b *testing.B, bp *brokerProc, codec compress.Codec, ring []fixture.Event) {
	ctx, cancel := context.WithTimeout(context.Background(), benchTimeout)
	defer cancel()
	c, err := newCeiling(ctx, bp.addrs, 1, codec, ring)
	if err != nil {
		b.Fatal(err)
	}
	defer c.close()
	if _, err := c.produce(ctx, benchWarmup); err != nil {
		b.Fatal(err)
	}
	cpu0, sys0, brk0 := selfCPU(), sysCPU(), procCPU(bp.pid())
	b.ResetTimer()
	n, err := c.produce(ctx, int64(b.N))
	b.StopTimer()
	cpu1, sys1, brk1 := selfCPU(), sysCPU(), procCPU(bp.pid())
	if err != nil {
		b.Fatal(err)
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(n)/sec, "rec/s")
	b.ReportMetric(float64(cpu1-cpu0)/float64(n), "cpu-ns/rec")
	b.ReportMetric(float64(sys1-sys0)/float64(n), "sys-ns/rec")
	if brk0 >= 0 && brk1 >= 0 {
		b.ReportMetric(float64(brk1-brk0)/float64(n), "brk-cpu-ns/rec")
	}
	b.ReportMetric(float64(n)/float64(b.N), "acked/op")
}

// produceError is the first partition error of a produce response, nil if
// there is none.
func produceError(resp *kmsg.ProduceResponse) error {
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if err := protocol.ErrorForCode(p.ErrorCode); err != nil {
				return fmt.Errorf("partition %d: %w", p.Partition, err)
			}
		}
	}
	return nil
}
