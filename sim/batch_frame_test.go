package sim

import (
	"encoding/binary"
	"errors"
	"testing"
)

// TestFirstBatchAsKafka: firstBatch walks a partition's records as
// Kafka's ByteBufferLogInputStream does (the cases Apache Kafka answers
// on the wire are in kafkacheck.BatchRules).
func TestFirstBatchAsKafka(t *testing.T) {
	batch := func(size int32, magic byte, n int) []byte {
		b := make([]byte, n)
		if n >= 12 {
			binary.BigEndian.PutUint32(b[8:], uint32(size))
		}
		if n > 16 {
			b[16] = magic
		}
		return b
	}
	one := batch(50, 2, 62)
	for name, tc := range map[string]struct {
		raw  []byte
		keep int   // bytes of the first batch; 0: an error
		code int16 // the error's code
	}{
		"one batch":                  {one, 62, 0},
		"nothing":                    {nil, 0, errInvalidRecord},
		"11 bytes":                   {batch(50, 2, 11), 0, errInvalidRecord},
		"size 13":                    {batch(13, 2, 62), 0, errCorruptMessage},
		"negative size":              {batch(-1, 2, 62), 0, errCorruptMessage},
		"16 bytes of a batch":        {batch(50, 2, 16), 0, errInvalidRecord},
		"magic 3":                    {batch(50, 3, 62), 0, errCorruptMessage},
		"magic -1":                   {batch(50, 0xff, 62), 0, errCorruptMessage},
		"one byte short":             {batch(50, 2, 61), 0, errInvalidRecord},
		"two batches":                {append(append([]byte(nil), one...), one...), 0, errInvalidRecord},
		"a batch and 11 bytes":       {append(append([]byte(nil), one...), make([]byte, 11)...), 62, 0},
		"a batch and a short one":    {append(append([]byte(nil), one...), one[:40]...), 62, 0},
		"a batch and size 0 after":   {append(append([]byte(nil), one...), make([]byte, 12)...), 0, errCorruptMessage},
		"a batch and magic 9 after":  {append(append([]byte(nil), one...), batch(50, 9, 20)...), 0, errCorruptMessage},
		"a batch and 16 bytes after": {append(append([]byte(nil), one...), batch(50, 2, 16)...), 62, 0},
	} {
		got, err := firstBatch(tc.raw)
		var be *BatchError
		switch {
		case tc.keep > 0 && (err != nil || len(got) != tc.keep):
			t.Errorf("%s: %d bytes, %v; want the first %d", name, len(got), err, tc.keep)
		case tc.keep == 0 && (!errors.As(err, &be) || be.Code != tc.code):
			t.Errorf("%s: %v, want code %d", name, err, tc.code)
		}
	}
}
