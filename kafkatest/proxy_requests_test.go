package kafkatest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/protocol"
	"github.com/rollsafe/rollsafe/sim"
)

// TestProxyOnRequest: a proxy in front of the simulator reports the API
// key of every request on a connection opened before OnRequest was set,
// each once the request went on to the broker, and none after nil.
func TestProxyOnRequest(t *testing.T) {
	c, err := sim.NewCluster(sim.Brokers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	px, err := newProxy(c.Addrs()[0])
	if err != nil {
		t.Fatal(err)
	}
	defer px.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := protocol.Dial(ctx, px.Addr(), protocol.ConnConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Request(ctx, kmsg.NewPtrMetadataRequest()); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	var keys []int16
	px.OnRequest(func(key, _ int16) { mu.Lock(); keys = append(keys, key); mu.Unlock() })
	find := kmsg.NewPtrFindCoordinatorRequest()
	find.CoordinatorKey, find.CoordinatorKeys = "g", []string{"g"}
	for _, req := range []kmsg.Request{kmsg.NewPtrMetadataRequest(), find, kmsg.NewPtrMetadataRequest()} {
		if _, err := conn.Request(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	px.OnRequest(nil)
	if _, err := conn.Request(ctx, kmsg.NewPtrMetadataRequest()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []int16{3, 10, 3}
	if len(keys) != len(want) || keys[0] != want[0] || keys[1] != want[1] || keys[2] != want[2] {
		t.Fatalf("requests seen %v, want %v", keys, want)
	}
}
