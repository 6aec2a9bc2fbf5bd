package kafkacheck

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/rollsafe/rollsafe/protocol"
)

// InvalidRecords produces to partition p of topic, over conn to its
// leader, uncompressed batches whose records break DefaultRecord's rules,
// and a well-formed one. Apache Kafka answers INVALID_RECORD for a byte
// left inside a record's size, a negative header count, a negative header
// key size and bytes after the last counted record, and takes the
// well-formed batch.
func InvalidRecords(ctx context.Context, conn *protocol.Conn, topic string, p int32) error {
	// body encodes a record's fields: offset delta off, key "k", value
	// "v", headers as the count written (each header "h"="x"), extra bytes
	// after them; record prefixes a body with its size.
	body := func(off, headers int64, extra ...byte) []byte {
		b := []byte{0}                // attributes
		b = binary.AppendVarint(b, 0) // timestamp delta
		b = binary.AppendVarint(b, off)
		b = append(binary.AppendVarint(b, 1), 'k')
		b = append(binary.AppendVarint(b, 1), 'v')
		b = binary.AppendVarint(b, headers)
		for range max(headers, 0) {
			b = append(binary.AppendVarint(b, 1), 'h')
			b = append(binary.AppendVarint(b, 1), 'x')
		}
		return append(b, extra...)
	}
	record := func(b []byte) []byte { return append(binary.AppendVarint(nil, int64(len(b))), b...) }
	negHeaderKey := body(0, 0)
	negHeaderKey = negHeaderKey[:len(negHeaderKey)-1] // the header count goes:
	negHeaderKey = binary.AppendVarint(negHeaderKey, 1)
	negHeaderKey = binary.AppendVarint(negHeaderKey, -2) // key size
	negHeaderKey = binary.AppendVarint(negHeaderKey, -1) // null value
	var errs []error
	for _, tc := range []struct {
		name string
		recs []byte
		n    int32
		want error // nil: taken
	}{
		{"well-formed", append(record(body(0, 0)), record(body(1, 1))...), 2, nil},
		{"byte left inside a record", record(body(0, 0, 0)), 1, protocol.ErrInvalidRecord},
		{"negative header count", record(body(0, -1)), 1, protocol.ErrInvalidRecord},
		{"negative header key size", record(negHeaderKey), 1, protocol.ErrInvalidRecord},
		{"bytes after the last record", append(record(body(0, 0)), 0), 1, protocol.ErrInvalidRecord},
	} {
		_, err := produce(ctx, conn, topic, p, batchOf(tc.recs, tc.n, 0))
		if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
			errs = append(errs, fmt.Errorf("%s: the broker answered %v; Kafka answers %v", tc.name, answer(err), answer(tc.want)))
		}
	}
	return errors.Join(errs...)
}

// answer names the code in a produce's error: NONE for nil.
func answer(err error) string {
	var ke *protocol.KafkaError
	if errors.As(err, &ke) {
		return ke.Name
	}
	if err == nil {
		return "NONE"
	}
	return err.Error()
}
