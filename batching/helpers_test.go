package batching

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/compress"
)

// checkNoLeak fails t if goroutines started during the test outlive it.
func checkNoLeak(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(3 * time.Second)
		for runtime.NumGoroutine() > before {
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<16)
				t.Errorf("goroutine leak: %d before, %d after\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	})
}

// collector gathers delivered batches per partition, in delivery order.
type collector struct {
	mu    sync.Mutex
	parts map[TopicPartition][]*Batch
	n     int
	ch    chan *Batch // optional: every delivered batch is also sent here
}

func newCollector() *collector { return &collector{parts: map[TopicPartition][]*Batch{}} }

func (c *collector) ready(b *Batch) {
	c.mu.Lock()
	c.parts[b.TP] = append(c.parts[b.TP], b)
	c.n++
	c.mu.Unlock()
	if c.ch != nil {
		c.ch <- b
	}
}

func (c *collector) batches(tp TopicPartition) []*Batch {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*Batch(nil), c.parts[tp]...)
}

func newAcc(t *testing.T, cfg Config, ready func(*Batch)) *Accumulator {
	t.Helper()
	a, err := NewAccumulator(cfg, ready)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a
}

func drain(t *testing.T, a *Accumulator) {
	t.Helper()
	// A hang guard, not a timing: 2000 zstd batches under -race on a
	// loaded 2-core machine took 12 s.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	a.Flush()
	if err := a.Drain(ctx); err != nil {
		t.Fatal(err)
	}
}

// releaseAll releases bs and checks that no bytes stay counted as encoded
// and unsent.
func releaseAll(t *testing.T, a *Accumulator, bs []*Batch) {
	t.Helper()
	for _, b := range bs {
		a.Release(b)
	}
	if u := a.unsent.Load(); u != 0 {
		t.Fatalf("unsent %d bytes after Release", u)
	}
}

// randomRecord makes a record with nil/empty/random keys, values and headers.
func randomRecord(rng *rand.Rand, maxLen int) Record {
	field := func() []byte {
		switch rng.IntN(5) {
		case 0:
			return nil
		case 1:
			return []byte{}
		}
		b := make([]byte, rng.IntN(maxLen+1))
		for i := range b {
			b[i] = byte('a' + rng.IntN(4)) // compressible
		}
		if rng.IntN(3) == 0 {
			for i := range b {
				b[i] = byte(rng.Uint32())
			}
		}
		return b
	}
	r := Record{Key: field(), Value: field()}
	for range rng.IntN(4) {
		r.Headers = append(r.Headers, Header{Key: fmt.Sprintf("h%d", rng.IntN(100)), Value: field()})
	}
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	r.Timestamp = base.Add(time.Duration(rng.IntN(1_000_000)) * time.Millisecond)
	return r
}

func sameBytes(a, b []byte) bool { return (a == nil) == (b == nil) && bytes.Equal(a, b) }

// sameRecord compares a decoded record to the one appended.
func sameRecord(want *Record, got *DecodedRecord) error {
	if !sameBytes(want.Key, got.Key) {
		return fmt.Errorf("key %q, want %q", got.Key, want.Key)
	}
	if !sameBytes(want.Value, got.Value) {
		return fmt.Errorf("value %q, want %q", got.Value, want.Value)
	}
	if got.Timestamp.UnixMilli() != want.Timestamp.UnixMilli() {
		return fmt.Errorf("timestamp %v, want %v", got.Timestamp, want.Timestamp)
	}
	if len(got.Headers) != len(want.Headers) {
		return fmt.Errorf("%d headers, want %d", len(got.Headers), len(want.Headers))
	}
	for i := range want.Headers {
		if got.Headers[i].Key != want.Headers[i].Key || !sameBytes(got.Headers[i].Value, want.Headers[i].Value) {
			return fmt.Errorf("header %d: %+v, want %+v", i, got.Headers[i], want.Headers[i])
		}
	}
	return nil
}

// kmsgDecode decodes one batch with franz-go's kmsg and compress.Decompress,
// independently of this package's decoder.
func kmsgDecode(raw []byte) (kmsg.RecordBatch, []kmsg.Record, error) {
	var rb kmsg.RecordBatch
	if err := rb.ReadFrom(raw); err != nil {
		return rb, nil, err
	}
	data, err := compress.Decompress(nil, rb.Records, compress.Codec(rb.Attributes&7), 1<<26)
	if err != nil {
		return rb, nil, err
	}
	var recs []kmsg.Record
	for len(data) > 0 {
		l, n := binary.Varint(data)
		if n <= 0 || int(l) > len(data)-n {
			return rb, nil, fmt.Errorf("bad record length")
		}
		var r kmsg.Record
		if err := r.ReadFrom(data[:n+int(l)]); err != nil {
			return rb, nil, err
		}
		recs = append(recs, r)
		data = data[n+int(l):]
	}
	if len(recs) != int(rb.NumRecords) {
		return rb, nil, fmt.Errorf("%d records, header says %d", len(recs), rb.NumRecords)
	}
	return rb, recs, nil
}

// checkKmsg verifies kmsg reads b's records as want.
func checkKmsg(raw []byte, want []Record) error {
	rb, recs, err := kmsgDecode(raw)
	if err != nil {
		return err
	}
	if len(recs) != len(want) {
		return fmt.Errorf("kmsg: %d records, want %d", len(recs), len(want))
	}
	for i, r := range recs {
		w := &want[i]
		if !sameBytes(w.Key, r.Key) || !sameBytes(w.Value, r.Value) || int(r.OffsetDelta) != i ||
			rb.FirstTimestamp+r.TimestampDelta64 != w.Timestamp.UnixMilli() || len(r.Headers) != len(w.Headers) {
			return fmt.Errorf("kmsg record %d differs: %+v", i, r)
		}
		for j, h := range r.Headers {
			if h.Key != w.Headers[j].Key || !sameBytes(h.Value, w.Headers[j].Value) {
				return fmt.Errorf("kmsg record %d header %d differs", i, j)
			}
		}
	}
	if uint32(rb.CRC) != batchCRC(raw) {
		return fmt.Errorf("kmsg CRC %#x", rb.CRC)
	}
	return nil
}
