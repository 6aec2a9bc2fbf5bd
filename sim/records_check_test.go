package sim

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// rec encodes one record body field by field (zigzag varints, as Kafka's
// DefaultRecord writes them) and prefixes its size; size < 0 uses the
// true size.
type rec struct {
	size       int64
	offset     int64
	key, value []byte // nil: null
	headers    []hdr
	trailing   []byte // after the headers, inside the size
	rawHeaders *int64 // header count to write instead of len(headers)
}

type hdr struct {
	keyLen int64 // -1: write len(key)
	key    []byte
	value  []byte
}

func field(b, v []byte) []byte {
	if v == nil {
		return binary.AppendVarint(b, -1)
	}
	return append(binary.AppendVarint(b, int64(len(v))), v...)
}

func (r rec) encode() []byte {
	body := []byte{0}                   // attributes
	body = binary.AppendVarint(body, 3) // timestamp delta
	body = binary.AppendVarint(body, r.offset)
	body = field(body, r.key)
	body = field(body, r.value)
	n := int64(len(r.headers))
	if r.rawHeaders != nil {
		n = *r.rawHeaders
	}
	body = binary.AppendVarint(body, n)
	for _, h := range r.headers {
		kl := h.keyLen
		if kl == -1 {
			kl = int64(len(h.key))
		}
		body = append(binary.AppendVarint(body, kl), h.key...)
		body = field(body, h.value)
	}
	body = append(body, r.trailing...)
	size := r.size
	if size < 0 {
		size = int64(len(body))
	}
	return append(binary.AppendVarint(nil, size), body...)
}

func records(rs ...rec) []byte {
	var b []byte
	for _, r := range rs {
		b = append(b, r.encode()...)
	}
	return b
}

func ok(off int64) rec { return rec{size: -1, offset: off, key: []byte("k"), value: []byte("v")} }

// TestCheckRecordsAsKafka: what Kafka's broker accepts from a produced
// batch's records and what it answers INVALID_RECORD for
// (DefaultRecord.readFrom and the batch iterator).
func TestCheckRecordsAsKafka(t *testing.T) {
	neg := int64(-1)
	many := int64(1000)
	withHeaders := ok(1)
	withHeaders.headers = []hdr{{keyLen: -1, key: []byte("h"), value: []byte("x")}, {keyLen: -1, key: []byte(""), value: nil}}
	nullKey := ok(0)
	nullKey.key = nil
	nullValue := ok(0)
	nullValue.value = nil
	trailing := ok(0)
	trailing.trailing = []byte{0}
	short := ok(0)
	short.size = 3
	long := ok(0)
	long.size = 9
	negHeaders := ok(0)
	negHeaders.rawHeaders = &neg
	tooManyHeaders := ok(0)
	tooManyHeaders.rawHeaders = &many
	negHeaderKey := ok(0)
	negHeaderKey.headers = []hdr{{keyLen: -2, value: []byte("x")}}
	keyOverrun := rec{size: -1, key: make([]byte, 5)}
	keyOverruns := keyOverrun.encode()
	keyOverruns = keyOverruns[:len(keyOverruns)-3] // the record ends inside its key
	for name, tc := range map[string]struct {
		recs  []byte
		n     int32
		keyed bool
		code  int16 // 0: accepted
		why   string
	}{
		"two":                  {records(ok(0), ok(1)), 2, false, 0, ""},
		"headers":              {records(ok(0), withHeaders), 2, false, 0, ""},
		"null key":             {records(nullKey), 1, false, 0, ""},
		"null key compacted":   {records(nullKey), 1, true, errInvalidRecord, "without key"},
		"null value":           {records(nullValue), 1, true, 0, ""},
		"none":                 {nil, 0, false, 0, ""},
		"bytes after the last": {append(records(ok(0)), 0), 1, false, errInvalidRecord, "remain after the last"},
		"fewer than counted":   {records(ok(0)), 2, false, errInvalidRecord, ""},
		"byte after headers":   {records(trailing), 1, false, errInvalidRecord, "expected to read"},
		"size too short":       {records(short), 1, false, errInvalidRecord, "expected to read"},
		"size beyond batch":    {records(long), 1, false, errInvalidRecord, ""},
		"negative headers":     {records(negHeaders), 1, false, errInvalidRecord, "number of record headers -1"},
		"headers beyond batch": {records(tooManyHeaders), 1, false, errInvalidRecord, ""},
		"negative header key":  {records(negHeaderKey), 1, false, errInvalidRecord, "negative header key size"},
		"key beyond batch":     {keyOverruns, 1, false, errInvalidRecord, ""},
		"offset delta 1 first": {records(ok(1)), 1, false, 0, ""},
		"offset deltas 0 2 1":  {records(ok(0), ok(2), ok(1)), 3, false, 0, ""},
		"6-byte varint size":   {[]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, 1, false, errInvalidRecord, ""},
		"truncated size":       {[]byte{0x80}, 1, false, errInvalidRecord, ""},
	} {
		inOrder, err := checkRecords(tc.recs, tc.n, tc.keyed)
		var be *BatchError
		switch {
		case tc.code == 0 && err != nil:
			t.Errorf("%s: %v, want accepted", name, err)
		case tc.code != 0 && (!errors.As(err, &be) || be.Code != tc.code):
			t.Errorf("%s: %v, want code %d", name, err, tc.code)
		case !strings.Contains(fmt.Sprint(err), tc.why):
			t.Errorf("%s: %v, want %q", name, err, tc.why)
		case err == nil && inOrder != !strings.HasPrefix(name, "offset delta"):
			t.Errorf("%s: in order %v", name, inOrder)
		}
	}
}

// FuzzCheckRecords: the walker never panics on any bytes, and whatever it
// accepts kmsg's record decoder reads as the same n records, in order when
// it says so (it is the stricter of the two: Kafka's rules) — except where
// a varint's last byte carries bits beyond 32 (64) bits, which Kafka drops
// and kmsg refuses.
func FuzzCheckRecords(f *testing.F) {
	f.Add(records(ok(0), ok(1)), int32(2), false)
	wh := ok(0)
	wh.headers = []hdr{{keyLen: -1, key: []byte("h"), value: []byte("x")}}
	f.Add(records(wh), int32(1), true)
	f.Add([]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, int32(1), false)
	f.Fuzz(func(t *testing.T, recs []byte, n int32, keyed bool) {
		n %= 64
		inOrder, err := checkRecords(recs, n, keyed)
		if err != nil {
			return
		}
		got, shuffled := int32(0), false
		if _, err := eachRecord(recs, n, func(i int32, r *kmsg.Record) error {
			if inOrder && r.OffsetDelta != i || keyed && r.Key == nil {
				t.Fatalf("record %d accepted (in order: %v) with offset delta %d, key %v", i, inOrder, r.OffsetDelta, r.Key)
			}
			if r.OffsetDelta != i {
				shuffled = true
			}
			got++
			return nil
		}); (err != nil || got != max(n, 0)) && !wideVarint(recs) {
			t.Fatalf("accepted, but kmsg read %d of %d records: %v", got, n, err)
		} else if err != nil {
			return
		}
		if shuffled == inOrder {
			t.Fatalf("in order %v, but kmsg read offset deltas other than 0..n-1: %v", inOrder, shuffled)
		}
	})
}

// wideVarint reports whether b holds anywhere a 5-byte varint whose last
// byte has bits beyond 32, or a 10-byte one with bits beyond 64: Kafka's
// readVarint and readVarlong drop them, kmsg's decoder refuses them.
func wideVarint(b []byte) bool {
	cont := 0 // bytes with the continuation bit just before b[i]
	for _, c := range b {
		if c >= 0x80 {
			cont++
			continue
		}
		if cont >= 4 && c > 0x0f || cont >= 9 && c > 0x01 {
			return true
		}
		cont = 0
	}
	return false
}
