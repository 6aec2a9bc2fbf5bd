package batching

import (
	"errors"
	"math"
	"testing"

	"github.com/rollsafe/rollsafe/compress"
)

func TestSplit(t *testing.T) {
	for _, codec := range compress.Codecs() {
		t.Run(codec.String(), func(t *testing.T) {
			col := newCollector()
			a := newAcc(t, Config{Codec: codec, Linger: -1, Workers: 1}, col.ready)
			tp := TopicPartition{"t", 0}
			recs := randomRecords(5, 200, 200)
			appendN(t, a, tp, recs)
			drain(t, a)
			b := col.batches(tp)[0]
			b.SetProducer(99, 3, math.MaxInt32-50) // sequences wrap within the children
			nRec, nBytes := a.Buffered()

			parts, err := b.Split(2000)
			if err != nil {
				t.Fatal(err)
			}
			if len(parts) < 2 {
				t.Fatalf("%d parts", len(parts))
			}
			seq := int64(math.MaxInt32 - 50)
			i := 0
			for pi, p := range parts {
				if p.UncompressedBytes() > 2000 || p.TP != tp || p.Codec() != codec {
					t.Fatalf("part %d: %d bytes, %v, %v", pi, p.UncompressedBytes(), p.TP, p.Codec())
				}
				d, err := DecodeBatches(p.Bytes(), 1<<20)
				if err != nil {
					t.Fatal(err)
				}
				h := d[0].Header
				if h.ProducerID != 99 || h.ProducerEpoch != 3 || int64(h.BaseSequence) != seq%(math.MaxInt32+1) {
					t.Fatalf("part %d header %+v, want seq %d", pi, h, seq%(math.MaxInt32+1))
				}
				if err := checkKmsg(p.Bytes(), recs[i:i+p.Records]); err != nil {
					t.Fatal(err)
				}
				for j := range d[0].Records {
					if err := sameRecord(&recs[i], &d[0].Records[j]); err != nil {
						t.Fatalf("part %d record %d: %v", pi, j, err)
					}
					if p.Token(j) != i {
						t.Fatalf("part %d record %d: token %v, want %d", pi, j, p.Token(j), i)
					}
					i++
				}
				seq += int64(p.Records)
			}
			if i != len(recs) {
				t.Fatalf("%d records in parts, want %d", i, len(recs))
			}
			if r2, b2 := a.Buffered(); r2 != nRec || b2 < nBytes-int64(len(parts))*8 || b2 > nBytes+int64(len(parts))*8 {
				t.Fatalf("accounting moved from %d/%d to %d/%d", nRec, nBytes, r2, b2)
			}
			a.Release(b)
			for _, p := range parts {
				a.Release(p)
			}
			if r, by := a.Buffered(); r != 0 || by != 0 {
				t.Fatalf("buffered after release: %d %d", r, by)
			}
		})
	}
}

func TestSplitEdges(t *testing.T) {
	col := newCollector()
	a := newAcc(t, Config{Linger: -1, Workers: 1}, col.ready)
	tp := TopicPartition{"t", 0}
	// A batch that already fits is halved.
	recs := randomRecords(6, 10, 20)
	appendN(t, a, tp, recs)
	drain(t, a)
	b := col.batches(tp)[0]
	parts, err := b.Split(1 << 20)
	if err != nil || len(parts) < 2 {
		t.Fatalf("%d parts, %v", len(parts), err)
	}
	// A record over maxBytes is named.
	if _, err := b.Split(batchHeaderLen + 5); !errors.Is(err, ErrRecordTooLarge) {
		t.Fatalf("err %v", err)
	}
	one := col.batches(tp)[0]
	a.Release(one)
	if _, err := one.Split(100); !errors.Is(err, ErrReleased) {
		t.Fatalf("split after release: %v", err)
	}
	single := Record{Value: []byte("x")}
	if err := a.TryAppend(TopicPartition{"t", 1}, &single, nil); err != nil {
		t.Fatal(err)
	}
	drain(t, a)
	if _, err := col.batches(TopicPartition{"t", 1})[0].Split(100); !errors.Is(err, ErrCannotSplit) {
		t.Fatalf("err %v", err)
	}
}

// TestWithout: the records kept are re-batched in order, decode with
// their own contents and tokens, and the dropped ones leave the buffer
// accounting at once; dropping every record gives no batch.
func TestWithout(t *testing.T) {
	for _, codec := range compress.Codecs() {
		t.Run(codec.String(), func(t *testing.T) {
			col := newCollector()
			a := newAcc(t, Config{Codec: codec, Linger: -1, Workers: 1}, col.ready)
			tp := TopicPartition{"t", 0}
			recs := randomRecords(7, 10, 200)
			appendN(t, a, tp, recs)
			drain(t, a)
			b := col.batches(tp)[0]
			nRec, _ := a.Buffered()
			drop := func(i int) bool { return i%3 == 1 } // 1, 4 dropped
			nb, err := b.Without(drop)
			if err != nil {
				t.Fatal(err)
			}
			var kept []Record
			var tokens []int
			for i := range recs {
				if !drop(i) {
					kept, tokens = append(kept, recs[i]), append(tokens, i)
				}
			}
			if nb.Records != len(kept) || nb.TP != tp || nb.Codec() != codec {
				t.Fatalf("%d records, %v, %v", nb.Records, nb.TP, nb.Codec())
			}
			if err := checkKmsg(nb.Bytes(), kept); err != nil {
				t.Fatal(err)
			}
			d, err := DecodeBatches(nb.Bytes(), 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			for j := range d[0].Records {
				if err := sameRecord(&kept[j], &d[0].Records[j]); err != nil {
					t.Fatalf("record %d: %v", j, err)
				}
				if nb.Token(j) != tokens[j] {
					t.Fatalf("record %d: token %v, want %d", j, nb.Token(j), tokens[j])
				}
			}
			if r, _ := a.Buffered(); r != nRec-(len(recs)-len(kept)) {
				t.Fatalf("buffered %d records after Without, want %d", r, nRec-(len(recs)-len(kept)))
			}
			a.Release(b)
			if r, _ := a.Buffered(); r != len(kept) {
				t.Fatalf("buffered %d records after releasing the old batch, want %d", r, len(kept))
			}
			none, err := nb.Without(func(int) bool { return true })
			if err != nil || none != nil {
				t.Fatalf("dropping every record: %v, %v", none, err)
			}
			a.Release(nb)
			if r, by := a.Buffered(); r != 0 || by != 0 {
				t.Fatalf("buffered %d records, %d bytes after releasing everything", r, by)
			}
		})
	}
}
