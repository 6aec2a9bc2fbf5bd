package bench

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/batching"
	"github.com/rollsafe/rollsafe/batching/fixture"
	"github.com/rollsafe/rollsafe/compress"
)

// randomRecords makes records with nil and empty keys and values, headers,
// and fixture values, for a property test.
func randomRecords(seed uint64, n int) []batching.Record {
	rng := rand.New(rand.NewPCG(seed, 3))
	events := fixture.Events(seed, n, fixture.Small)
	field := func(i int) []byte {
		switch rng.IntN(4) {
		case 0:
			return nil
		case 1:
			return []byte{}
		case 2:
			b := make([]byte, rng.IntN(200))
			for j := range b {
				b[j] = byte(rng.Uint32())
			}
			return b
		}
		return events[i].Value
	}
	out := make([]batching.Record, n)
	for i := range out {
		r := batching.Record{Key: field(i), Value: field(i), Timestamp: events[i].Timestamp}
		for range rng.IntN(3) {
			r.Headers = append(r.Headers, batching.Header{Key: fmt.Sprintf("h%d", rng.IntN(9)), Value: field(i)})
		}
		out[i] = r
	}
	return out
}

// buildBatches encodes recs into batches with rollsafe's accumulator.
func buildBatches(t *testing.T, codec compress.Codec, recs []batching.Record) []*batching.Batch {
	t.Helper()
	var got []*batching.Batch
	a, err := batching.NewAccumulator(batching.Config{Codec: codec, BatchBytes: 16 << 10, Linger: -1, Workers: 2},
		func(b *batching.Batch) { got = append(got, b) }) // one partition: ready is serialized
	if err != nil {
		t.Fatal(err)
	}
	for i := range recs {
		if err := a.TryAppend(batching.TopicPartition{Partition: 0}, &recs[i], i); err != nil {
			t.Fatal(err)
		}
	}
	a.Close()
	return got
}

// TestBatchesThroughKfake produces batches built by package batching to
// kfake with hand-made ProduceRequests, consumes them with kgo, and checks
// every record, for every codec.
func TestBatchesThroughKfake(t *testing.T) {
	var topics []string
	for _, c := range compress.Codecs() {
		topics = append(topics, "rt-"+c.String())
	}
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, topics...))
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	prod, err := kgo.NewClient(kgo.SeedBrokers(cluster.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer prod.Close()

	// Produce v13 names topics by id; older versions by name. Send both.
	mreq := kmsg.NewPtrMetadataRequest()
	for _, tn := range topics {
		mt := kmsg.NewMetadataRequestTopic()
		mt.Topic = kmsg.StringPtr(tn)
		mreq.Topics = append(mreq.Topics, mt)
	}
	mresp, err := mreq.RequestWith(ctx, prod)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string][16]byte{}
	for _, mt := range mresp.Topics {
		ids[*mt.Topic] = mt.TopicID
	}

	for ci, codec := range compress.Codecs() {
		topic := topics[ci]
		t.Run(codec.String(), func(t *testing.T) {
			recs := randomRecords(uint64(ci)+10, 600)
			batches := buildBatches(t, codec, recs)
			if len(batches) < 2 {
				t.Fatalf("%d batches", len(batches))
			}
			for _, b := range batches {
				req := kmsg.NewPtrProduceRequest()
				req.Acks = -1
				req.TimeoutMillis = 5000
				rt := kmsg.NewProduceRequestTopic()
				rt.Topic = topic
				rt.TopicID = ids[topic]
				rp := kmsg.NewProduceRequestTopicPartition()
				rp.Partition = 0
				rp.Records = b.Bytes()
				rt.Partitions = append(rt.Partitions, rp)
				req.Topics = append(req.Topics, rt)
				resp, err := prod.Request(ctx, req)
				if err != nil {
					t.Fatal(err)
				}
				pr := resp.(*kmsg.ProduceResponse)
				if len(pr.Topics) != 1 || len(pr.Topics[0].Partitions) != 1 {
					t.Fatalf("response %+v", pr)
				}
				if code := pr.Topics[0].Partitions[0].ErrorCode; code != 0 {
					t.Fatalf("produce error code %d", code)
				}
			}

			cons, err := kgo.NewClient(kgo.SeedBrokers(cluster.ListenAddrs()...),
				kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().AtStart()}}))
			if err != nil {
				t.Fatal(err)
			}
			defer cons.Close()
			var got []*kgo.Record
			for len(got) < len(recs) {
				fs := cons.PollFetches(ctx)
				if err := ctx.Err(); err != nil {
					t.Fatalf("consumed %d of %d records: %v", len(got), len(recs), err)
				}
				fs.EachError(func(topic string, p int32, err error) { t.Fatalf("fetch %s/%d: %v", topic, p, err) })
				got = append(got, fs.Records()...)
			}
			if len(got) != len(recs) {
				t.Fatalf("consumed %d records, want %d", len(got), len(recs))
			}
			for i, g := range got {
				w := &recs[i]
				if g.Offset != int64(i) || !bytes.Equal(g.Key, w.Key) || (g.Key == nil) != (w.Key == nil) ||
					!bytes.Equal(g.Value, w.Value) || (g.Value == nil) != (w.Value == nil) ||
					g.Timestamp.UnixMilli() != w.Timestamp.UnixMilli() || len(g.Headers) != len(w.Headers) {
					t.Fatalf("record %d: got %+v, want %+v", i, g, w)
				}
				for j, h := range g.Headers {
					if h.Key != w.Headers[j].Key || !bytes.Equal(h.Value, w.Headers[j].Value) {
						t.Fatalf("record %d header %d: %+v, want %+v", i, j, h, w.Headers[j])
					}
				}
			}
		})
	}
}
