package client

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
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
