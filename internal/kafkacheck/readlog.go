package kafkacheck

import (
	"context"
	"fmt"

	"github.com/rollsafe/rollsafe/batching"
	"github.com/rollsafe/rollsafe/compress"
	"github.com/rollsafe/rollsafe/protocol"
)

// logRecord is a record read back: its offset and value.
type logRecord struct {
	offset int64
	value  string
}

// readLog reads partition p of topic over conn from offset from until the
// fetch position reaches to, and returns the records at from or later, in
// log order, the codec of each batch read, and the last high watermark
// the broker answered. A fetch below to that returns no batch is an error.
func readLog(ctx context.Context, conn *protocol.Conn, topic string, p int32, from, to int64) (recs []logRecord, codecs []compress.Codec, hw int64, err error) {
	for offset := from; offset < to; {
		var raw []byte
		raw, hw, _, err = protocol.FetchPartition(ctx, conn, topic, p, offset, 1<<20)
		if err != nil {
			return recs, codecs, hw, fmt.Errorf("fetch at %d: %w", offset, err)
		}
		batches, err := batching.DecodeBatches(raw, 1<<20)
		if err != nil || len(batches) == 0 {
			return recs, codecs, hw, fmt.Errorf("fetch at %d (high watermark %d): %d batches, %v", offset, hw, len(batches), err)
		}
		for _, d := range batches {
			if d.Header.LastOffset() < offset {
				continue
			}
			codecs = append(codecs, d.Header.Codec())
			for _, r := range d.Records {
				if r.Offset >= from {
					recs = append(recs, logRecord{r.Offset, string(r.Value)})
				}
			}
			offset = d.Header.LastOffset() + 1
		}
	}
	return recs, codecs, hw, nil
}

// values returns the records' values.
func values(recs []logRecord) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.value
	}
	return out
}
