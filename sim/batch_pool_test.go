package sim

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"sync"
	"testing"

	"github.com/rollsafe/rollsafe/compress"
)

// Batches checked at once on several connections each inflate into a
// buffer of their own from the pool: a valid batch passes and a batch whose
// records overrun its count fails, whatever batch a reused buffer held
// before (larger or smaller).
func TestParseProduceBatchPooledBuffers(t *testing.T) {
	large := makeBatch(t, spec{pid: -1, epoch: -1, seq: -1, codec: compress.Gzip, values: vals("a-long-value-to-fill-the-buffer", 3000)})
	small := makeBatch(t, spec{pid: -1, epoch: -1, seq: -1, codec: compress.Gzip, values: vals("v", 3)})
	bad := makeBatch(t, spec{pid: -1, epoch: -1, seq: -1, codec: compress.Gzip, values: vals("b", 50)})
	// One record fewer in the header than in the records: its check must
	// find bytes after the last counted record (Kafka: INVALID_RECORD,
	// "Incorrect declared batch size, records still remaining").
	binary.BigEndian.PutUint32(bad[57:], 49)
	binary.BigEndian.PutUint32(bad[23:], 48)
	binary.BigEndian.PutUint32(bad[17:], crc32.Checksum(bad[21:], castagnoli))
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 60 {
				switch (g + i) % 3 {
				case 0:
					if h, _, err := parseProduceBatch(large, 8<<20, 64<<20, false); err != nil || h.numRecords != 3000 {
						t.Errorf("large batch: %d records, %v", h.numRecords, err)
					}
				case 1:
					if h, _, err := parseProduceBatch(small, 8<<20, 64<<20, false); err != nil || h.numRecords != 3 {
						t.Errorf("small batch: %d records, %v", h.numRecords, err)
					}
				default:
					var be *BatchError
					if _, _, err := parseProduceBatch(bad, 8<<20, 64<<20, false); !errors.As(err, &be) || be.Code != errInvalidRecord {
						t.Errorf("overrunning batch: %v, want an invalid-record BatchError", err)
					}
				}
			}
		}()
	}
	wg.Wait()
}
