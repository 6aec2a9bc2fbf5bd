package client

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/idempotence"
)

// TestResponseIndexFindsEveryPartition checks the response lookup in
// request order, shuffled, with missing partitions, small and large.
func TestResponseIndexFindsEveryPartition(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	type key struct {
		topic string
		ti    int
		part  int32
	}
	for _, size := range []struct{ topics, parts int }{{1, 1}, {1, 6}, {3, 4}, {2, 40}, {20, 3}} {
		pr := kmsg.NewPtrProduceResponse()
		var keys []key
		for ti := range size.topics {
			rt := kmsg.NewProduceResponseTopic()
			rt.Topic = fmt.Sprintf("t%d", ti)
			for pi := range size.parts {
				rp := kmsg.NewProduceResponseTopicPartition()
				rp.Partition = int32(pi * 2)
				rp.BaseOffset = int64(ti*1000 + pi)
				rt.Partitions = append(rt.Partitions, rp)
				keys = append(keys, key{rt.Topic, ti, rp.Partition})
			}
			pr.Topics = append(pr.Topics, rt)
		}
		check := func(order []key) {
			var x responseIndex
			x.init(pr)
			for _, k := range order {
				got := x.find(k.topic, k.part)
				if got == nil || got.Partition != k.part || got.BaseOffset != int64(k.ti*1000+int(k.part)/2) {
					t.Fatalf("%v: %s[%d]: found %+v", size, k.topic, k.part, got)
				}
				if x.find(k.topic, k.part+1) != nil { // odd partitions are never answered
					t.Fatalf("%v: %s[%d] found though absent", size, k.topic, k.part+1)
				}
			}
			if x.find("absent", 0) != nil {
				t.Fatal("absent topic found")
			}
		}
		check(keys)
		shuffled := append([]key(nil), keys...)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		check(shuffled)
	}
	var x responseIndex
	x.init(nil)
	if x.find("t0", 0) != nil {
		t.Fatal("answer found without a response")
	}
}

// TestRequestTopicIndexesManyTopics checks the topic lookup send uses,
// linear and through its map.
func TestRequestTopicIndexesManyTopics(t *testing.T) {
	req := kmsg.NewPtrProduceRequest()
	idx := map[string]int{}
	for i := range 3 * linearTopics {
		name := fmt.Sprintf("t%d", i)
		if requestTopic(req, nil, name) != -1 || requestTopic(req, idx, name) != -1 {
			t.Fatalf("%s found before it was added", name)
		}
		rt := kmsg.NewProduceRequestTopic()
		rt.Topic = name
		req.Topics = append(req.Topics, rt)
		idx[name] = i
		if requestTopic(req, nil, name) != i || requestTopic(req, idx, name) != i {
			t.Fatalf("%s not found at %d", name, i)
		}
	}
}

// TestNextRequestKeepsPartitionOrder: the requests cut from an outbox carry
// at most one batch per partition, each partition's batches in queue
// order across requests, and stay within maxRequestBytes (a larger batch
// alone); short and long queues (map) cut alike.
func TestNextRequestKeepsPartitionOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 7, linearQueue, linearQueue + 1, 300} {
		var queue []outgoing
		for i := range n {
			size := 100
			if rng.IntN(10) == 0 {
				size = maxRequestBytes/3 + rng.IntN(maxRequestBytes)
			}
			tp := idempotence.TopicPartition{Topic: fmt.Sprintf("t%d", rng.IntN(2)), Partition: int32(rng.IntN(max(n/3, 1)))}
			queue = append(queue, outgoing{tp: tp, id: idempotence.BatchID(i + 1), bytes: make([]byte, size)})
		}
		next := map[idempotence.TopicPartition]idempotence.BatchID{} // last id seen per partition
		var taken map[idempotence.TopicPartition]bool
		left, requests := queue, 0
		for len(left) > 0 {
			var round []outgoing
			round, left, taken = nextRequest(left, taken)
			requests++
			if len(round) == 0 {
				t.Fatalf("n=%d: empty request with %d batches left", n, len(left))
			}
			seen := map[idempotence.TopicPartition]bool{}
			size := 0
			for _, o := range round {
				if seen[o.tp] {
					t.Fatalf("n=%d: two batches of %v in one request", n, o.tp)
				}
				seen[o.tp] = true
				if o.id <= next[o.tp] {
					t.Fatalf("n=%d: batch %d of %v after %d", n, o.id, o.tp, next[o.tp])
				}
				next[o.tp] = o.id
				size += len(o.bytes)
			}
			if len(round) > 1 && size > maxRequestBytes {
				t.Fatalf("n=%d: request of %d bytes", n, size)
			}
			// A partition with nothing in the request was held back by the
			// size bound: its first batch left does not fit.
			for _, o := range left {
				if !seen[o.tp] && size+len(o.bytes) <= maxRequestBytes {
					t.Fatalf("n=%d: batch %d of %v (%d bytes) left out of a request of %d bytes", n, o.id, o.tp, len(o.bytes), size)
				}
				seen[o.tp] = true
			}
		}
		if requests > n {
			t.Fatalf("n=%d: %d requests", n, requests)
		}
	}
}
