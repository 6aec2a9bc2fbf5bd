package batching

import (
	"errors"
	"testing"

	"github.com/rollsafe/rollsafe/compress"
)

// encodeBatches builds n single-partition batches of random records.
func encodeBatches(t testing.TB, codec compress.Codec, recs []Record, batchBytes int) []*Batch {
	col := newCollector()
	a, err := NewAccumulator(Config{Codec: codec, BatchBytes: batchBytes, Linger: -1, Workers: 1}, col.ready)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	tp := TopicPartition{"t", 0}
	for i := range recs {
		if err := a.TryAppend(tp, &recs[i], nil); err != nil {
			t.Fatal(err)
		}
	}
	a.Close()
	return col.batches(tp)
}

func concatBatches(bs []*Batch) []byte {
	var out []byte
	for i, b := range bs {
		start := len(out)
		out = append(out, b.Bytes()...)
		be.PutUint64(out[start:], uint64(i*1000)) // as a broker assigns offsets
	}
	return out
}

func TestDecodeStream(t *testing.T) {
	recs := randomRecords(8, 300, 100)
	bs := encodeBatches(t, compress.Gzip, recs, 3000)
	if len(bs) < 3 {
		t.Fatalf("%d batches", len(bs))
	}
	raw := concatBatches(bs)
	hs, err := ParseBatchHeaders(raw)
	if err != nil || len(hs) != len(bs) {
		t.Fatalf("%d headers, %v", len(hs), err)
	}
	for i, h := range hs {
		if h.BaseOffset != int64(i*1000) || int(h.NumRecords) != bs[i].Records || h.Magic != 2 || h.LastOffset() != h.BaseOffset+int64(bs[i].Records-1) {
			t.Fatalf("header %d: %+v", i, h)
		}
	}
	// Offsets: the CRC does not cover the base offset, so changing it is fine.
	ds, err := DecodeBatches(raw, 1<<20)
	if err != nil || len(ds) != len(bs) {
		t.Fatalf("%d batches, %v", len(ds), err)
	}
	if ds[1].Records[2].Offset != 1002 {
		t.Fatalf("offset %d", ds[1].Records[2].Offset)
	}
	// A truncated last batch is ignored, at every cut.
	last := len(raw) - len(bs[len(bs)-1].Bytes())
	for cut := last; cut < len(raw); cut += 7 {
		hs, err := ParseBatchHeaders(raw[:cut])
		if err != nil || len(hs) != len(bs)-1 {
			t.Fatalf("cut %d: %d headers, %v", cut, len(hs), err)
		}
		ds, err := DecodeBatches(raw[:cut], 1<<20)
		if err != nil || len(ds) != len(bs)-1 {
			t.Fatalf("cut %d: %d batches, %v", cut, len(ds), err)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	bs := encodeBatches(t, compress.Snappy, randomRecords(9, 50, 100), 1<<20)
	good := bs[0].Bytes()
	mut := func(f func(b []byte)) []byte {
		b := append([]byte(nil), good...)
		f(b)
		return b
	}
	cases := []struct {
		name string
		raw  []byte
		want error
	}{
		{"crc", mut(func(b []byte) { b[len(b)-1] ^= 1 }), ErrChecksum},
		{"magic", mut(func(b []byte) { b[offMagic] = 1 }), ErrUnsupportedMagic},
		{"short length", mut(func(b []byte) { be.PutUint32(b[offLength:], 10) }), ErrCorrupt},
		{"negative length", mut(func(b []byte) { be.PutUint32(b[offLength:], 0xffffffff) }), ErrCorrupt},
		{"record count", mut(func(b []byte) {
			be.PutUint32(b[offNumRecords:], 51)
			be.PutUint32(b[offCRC:], batchCRC(b))
		}), ErrCorrupt},
		{"codec", mut(func(b []byte) {
			b[offAttributes+1] |= 7
			be.PutUint32(b[offCRC:], batchCRC(b))
		}), compress.ErrUnknownCodec},
	}
	for _, c := range cases {
		if _, err := DecodeBatches(c.raw, 1<<20); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	if _, err := DecodeBatches(good, 100); !errors.Is(err, compress.ErrTooLarge) {
		t.Errorf("limit: %v", err)
	}
	if !errors.Is(ErrChecksum, ErrCorrupt) {
		t.Error("ErrChecksum does not wrap ErrCorrupt")
	}
	if _, err := DecodeBatch(good[:len(good)-1], 1<<20); !errors.Is(err, ErrCorrupt) {
		t.Errorf("DecodeBatch truncated: %v", err)
	}
}

func FuzzDecode(f *testing.F) {
	for _, codec := range compress.Codecs() {
		for _, b := range encodeBatches(f, codec, randomRecords(uint64(codec), 20, 60), 600) {
			f.Add(b.Bytes())
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		hs, herr := ParseBatchHeaders(raw)
		ds, err := DecodeBatches(raw, 1<<20)
		if err == nil && herr == nil && len(ds) != len(hs) {
			t.Fatalf("%d decoded, %d headers", len(ds), len(hs))
		}
		for _, d := range ds {
			if len(d.Records) != int(d.Header.NumRecords) {
				t.Fatalf("%d records, header says %d", len(d.Records), d.Header.NumRecords)
			}
		}
	})
}

// Old logs start with magic 0/1 messages: the header walk steps over them
// (their offsets, no producer) instead of failing on every read.
func TestParseHeadersStepsOverLegacyMessages(t *testing.T) {
	legacy := func(offset int64, magic byte, value string) []byte {
		body := []byte{0, 0, 0, 0, magic, 0} // crc (not checked), magic, attributes
		if magic == 1 {
			body = append(body, make([]byte, 8)...) // timestamp
		}
		body = append(body, 0xff, 0xff, 0xff, 0xff) // null key
		body = be.AppendUint32(body, uint32(len(value)))
		body = append(body, value...)
		m := be.AppendUint64(nil, uint64(offset))
		m = be.AppendUint32(m, uint32(len(body)))
		return append(m, body...)
	}
	bs := encodeBatches(t, compress.None, randomRecords(3, 4, 50), 1<<20)
	v2 := append([]byte(nil), bs[0].Bytes()...)
	be.PutUint64(v2[offBaseOffset:], 2)
	raw := append(append(legacy(0, 0, "old"), legacy(1, 1, "older")...), v2...)
	hs, err := ParseBatchHeaders(raw)
	if err != nil || len(hs) != 3 {
		t.Fatalf("%d headers, %v", len(hs), err)
	}
	if hs[0].Magic != 0 || hs[0].BaseOffset != 0 || hs[0].ProducerID != -1 || hs[0].LastOffset() != 0 ||
		hs[1].Magic != 1 || hs[1].BaseOffset != 1 || hs[2].Magic != 2 || hs[2].BaseOffset != 2 {
		t.Fatalf("headers %+v", hs)
	}
	// A truncated legacy message ends the walk quietly, like a truncated batch.
	if hs, err := ParseBatchHeaders(raw[:20]); err != nil || len(hs) != 0 {
		t.Fatalf("truncated: %d headers, %v", len(hs), err)
	}
	// A legacy size too small to be a message is corrupt.
	bad := legacy(0, 0, "x")
	be.PutUint32(bad[offLength:], 3)
	if _, err := ParseBatchHeaders(bad); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("short legacy message: %v", err)
	}
}
