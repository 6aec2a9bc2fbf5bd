package batching

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rollsafe/rollsafe/compress"
)

// TestRoundTripProperty appends random records to several partitions with
// parallel workers and checks, for every codec, that the batches arrive in
// order per partition and decode (ours and kmsg's) to the same records.
func TestRoundTripProperty(t *testing.T) {
	for _, codec := range compress.Codecs() {
		t.Run(codec.String(), func(t *testing.T) {
			checkNoLeak(t)
			rng := rand.New(rand.NewPCG(uint64(codec)+1, 7))
			col := newCollector()
			a := newAcc(t, Config{Codec: codec, BatchBytes: 4096, Linger: -1, Workers: 3}, col.ready)
			tps := []TopicPartition{{"a", 0}, {"a", 1}, {"b", 0}}
			want := map[TopicPartition][]Record{}
			for i := range 1500 {
				tp := tps[rng.IntN(len(tps))]
				r := randomRecord(rng, 300)
				want[tp] = append(want[tp], r)
				if err := a.Append(context.Background(), tp, &r, i); err != nil {
					t.Fatal(err)
				}
				if rng.IntN(200) == 0 {
					a.Flush()
				}
			}
			drain(t, a)
			for _, tp := range tps {
				if err := checkPartition(col.batches(tp), want[tp], codec, 4096); err != nil {
					t.Fatalf("%v: %v", tp, err)
				}
			}
			for _, bs := range col.parts {
				for _, b := range bs {
					a.Release(b)
				}
			}
			if n, by := a.Buffered(); n != 0 || by != 0 {
				t.Fatalf("buffered after release: %d records, %d bytes", n, by)
			}
		})
	}
}

// checkPartition decodes one partition's batches in delivery order.
func checkPartition(bs []*Batch, want []Record, codec compress.Codec, maxBatch int) error {
	i, lastToken := 0, -1
	for bi, b := range bs {
		if b.UncompressedBytes() > maxBatch && b.Records > 1 {
			return fmt.Errorf("batch %d: %d bytes uncompressed, over %d", bi, b.UncompressedBytes(), maxBatch)
		}
		d, err := DecodeBatches(b.Bytes(), 1<<24)
		if err != nil {
			return fmt.Errorf("batch %d: %w", bi, err)
		}
		if len(d) != 1 || len(d[0].Records) != b.Records || len(b.Sources()) != b.Records {
			return fmt.Errorf("batch %d: %d batches, %d records, %d sources; want 1, %d", bi, len(d), len(d[0].Records), len(b.Sources()), b.Records)
		}
		h := d[0].Header
		if h.Codec() != codec || h.ProducerID != -1 || h.BaseSequence != -1 || h.PartitionLeaderEpoch != -1 {
			return fmt.Errorf("batch %d: header %+v", bi, h)
		}
		if err := checkKmsg(b.Bytes(), want[i:i+b.Records]); err != nil {
			return fmt.Errorf("batch %d: %w", bi, err)
		}
		for j := range d[0].Records {
			if tok, ok := b.Token(j).(int); !ok || tok <= lastToken {
				return fmt.Errorf("batch %d record %d: token %v after %d", bi, j, b.Token(j), lastToken)
			} else {
				lastToken = tok
			}
			if err := sameRecord(&want[i], &d[0].Records[j]); err != nil {
				return fmt.Errorf("batch %d record %d: %w", bi, j, err)
			}
			if d[0].Records[j].Offset != int64(j) {
				return fmt.Errorf("batch %d record %d: offset %d", bi, j, d[0].Records[j].Offset)
			}
			i++
		}
	}
	if i != len(want) {
		return fmt.Errorf("%d records delivered, %d appended", i, len(want))
	}
	return nil
}
