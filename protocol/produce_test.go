package protocol

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// randomProduce builds a produce request with random topics, partitions,
// records (including nil and empty ones) and, sometimes, unknown tags and a
// transactional id.
func randomProduce(rng *rand.Rand, version int16) *kmsg.ProduceRequest {
	req := kmsg.NewPtrProduceRequest()
	req.SetVersion(version)
	req.Acks = int16(rng.IntN(3) - 1)
	req.TimeoutMillis = rng.Int32()
	if rng.IntN(4) == 0 {
		id := fmt.Sprintf("txn-%d", rng.IntN(1000))
		req.TransactionID = &id
	}
	tags := func(t *kmsg.Tags) {
		if rng.IntN(5) == 0 {
			for range 1 + rng.IntN(3) {
				t.Set(uint32(rng.IntN(200)), bytes.Repeat([]byte{byte(rng.IntN(256))}, rng.IntN(150)))
			}
		}
	}
	for ti := range rng.IntN(4) {
		t := kmsg.NewProduceRequestTopic()
		t.Topic = fmt.Sprintf("topic-%d-%s", ti, bytes.Repeat([]byte{'x'}, rng.IntN(140)))
		for pi := range rng.IntN(5) {
			p := kmsg.NewProduceRequestTopicPartition()
			p.Partition = int32(pi*3 + rng.IntN(3))
			switch rng.IntN(6) {
			case 0: // nil records
			case 1:
				p.Records = []byte{}
			default:
				p.Records = make([]byte, rng.IntN(300))
				for i := range p.Records {
					p.Records[i] = byte(rng.IntN(256))
				}
			}
			tags(&p.UnknownTags)
			t.Partitions = append(t.Partitions, p)
		}
		tags(&t.UnknownTags)
		req.Topics = append(req.Topics, t)
	}
	tags(&req.UnknownTags)
	return req
}

func TestProduceFrameMatchesKmsg(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	var f produceFrame
	for version := int16(3); version <= 12; version++ {
		for i := range 300 {
			req := randomProduce(rng, version)
			corr := rng.Int32()
			clientID := fmt.Sprintf("client-%d", rng.IntN(50))
			want := appendRequest(nil, req, corr, clientID)

			segs := f.encode(req, corr, clientID)
			got := bytes.Join(segs, nil)
			require.Equal(t, want, got, "v%d request %d", version, i)
			require.Equal(t, len(want), f.size())
			require.Equal(t, want, f.flatten(nil))
			for _, s := range segs {
				require.NotEmpty(t, s, "no empty segment")
			}
			// Non-empty records are referenced, not copied.
			for _, tp := range req.Topics {
				for _, p := range tp.Partitions {
					if len(p.Records) == 0 {
						continue
					}
					found := false
					for _, s := range segs {
						if len(s) == len(p.Records) && &s[0] == &p.Records[0] {
							found = true
						}
					}
					require.True(t, found, "v%d request %d: records spliced by reference", version, i)
				}
			}
			f.release()
			require.Empty(t, f.segs)
			require.Empty(t, f.splice)
		}
	}
}

// TestProduceWireOverTCPAndPipe sends produce requests through real
// connections, writev (TCP) and flattened (net.Pipe), at a classic and
// a flexible version, and checks that the broker parses exactly what was
// sent.
func TestProduceWireOverTCPAndPipe(t *testing.T) {
	base := runtime.NumGoroutine()
	for _, transport := range []string{"tcp", "pipe"} {
		for _, version := range []int16{3, 8, 9, 12} {
			t.Run(fmt.Sprintf("%s/v%d", transport, version), func(t *testing.T) {
				got := make(chan *kmsg.ProduceRequest, 16)
				f := newFakeBroker(t)
				f.handle = func(req kmsg.Request) kmsg.Response {
					if pr, ok := req.(*kmsg.ProduceRequest); ok {
						got <- pr
					}
					return metadataResponder(req)
				}
				cfg := ConnConfig{ClientID: "wire-test", MaxVersions: map[int16]int16{0: version}}
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				var c *Conn
				if transport == "tcp" {
					var err error
					c, err = Dial(ctx, f.listen(), cfg)
					require.NoError(t, err)
					require.True(t, c.writev)
				} else {
					c = pipeConn(t, f, cfg)
					require.False(t, c.writev)
				}
				rng := rand.New(rand.NewPCG(uint64(version), 3))
				for i := range 20 {
					req := randomProduce(rng, version)
					req.Acks = -1
					// Large batches make writev loop over partial writes.
					if len(req.Topics) > 0 && len(req.Topics[0].Partitions) > 0 && i%4 == 0 {
						req.Topics[0].Partitions[0].Records = bytes.Repeat([]byte{byte(i)}, 3<<20)
					}
					_, err := c.Request(ctx, req)
					require.NoError(t, err)
					require.EqualValues(t, version, req.GetVersion())
					var srv *kmsg.ProduceRequest
					select {
					case srv = <-got:
					case <-ctx.Done():
						t.Fatal("broker did not see the request")
					}
					require.Equal(t, req.AppendTo(nil), srv.AppendTo(nil), "request %d", i)
				}
				require.NoError(t, c.Close())
			})
		}
	}
	checkNoLeak(t, base)
}

// TestProduceFrameKeepsNoRecords checks that a connection drops its
// references to the batches once a request is written.
func TestProduceFrameKeepsNoRecords(t *testing.T) {
	f := newFakeBroker(t)
	f.handle = metadataResponder
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := Dial(ctx, f.listen(), ConnConfig{})
	require.NoError(t, err)
	defer c.Close()
	req := kmsg.NewPtrProduceRequest()
	req.Acks = -1
	tp := kmsg.NewProduceRequestTopic()
	tp.Topic = "t"
	p := kmsg.NewProduceRequestTopicPartition()
	p.Records = bytes.Repeat([]byte{1}, 1000)
	tp.Partitions = append(tp.Partitions, p)
	req.Topics = append(req.Topics, tp)
	_, err = c.Request(ctx, req)
	require.NoError(t, err)
	c.wlock <- struct{}{}
	defer func() { <-c.wlock }()
	for _, s := range c.pf.segs[:cap(c.pf.segs)] {
		require.Nil(t, s)
	}
	for _, s := range c.pf.splice[:cap(c.pf.splice)] {
		require.Nil(t, s.records)
	}
}

func BenchmarkProduceFrame(b *testing.B) {
	req := kmsg.NewPtrProduceRequest()
	req.SetVersion(9)
	req.Acks = -1
	tp := kmsg.NewProduceRequestTopic()
	tp.Topic = "peers"
	for i := range 6 {
		p := kmsg.NewProduceRequestTopicPartition()
		p.Partition = int32(i)
		p.Records = make([]byte, 1<<20)
		tp.Partitions = append(tp.Partitions, p)
	}
	req.Topics = append(req.Topics, tp)
	b.Run("segments", func(b *testing.B) {
		var f produceFrame
		b.ReportAllocs()
		for b.Loop() {
			f.encode(req, 1, "rollsafe")
			f.release()
		}
	})
	b.Run("copy", func(b *testing.B) {
		var buf []byte
		b.ReportAllocs()
		for b.Loop() {
			buf = appendRequest(buf[:0], req, 1, "rollsafe")
		}
	})
}
