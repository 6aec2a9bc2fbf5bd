package sim

import (
	"testing"

	"github.com/rollsafe/rollsafe/batching/fixture"
	"github.com/rollsafe/rollsafe/compress"
)

// BenchmarkParseProduceBatchGzip guards the broker's check of a produced
// gzip batch (1,000 of the benchmarks' 1 KB fixture events): CRC,
// inflating into a reused buffer and parsing every record, with no buffer
// allocated per batch.
func BenchmarkParseProduceBatchGzip(b *testing.B) {
	var values []string
	for _, ev := range fixture.Events(fixture.Seed, 1000, fixture.Large) {
		values = append(values, string(ev.Value))
	}
	raw := makeBatch(b, spec{pid: -1, epoch: -1, seq: -1, codec: compress.Gzip, values: values})
	if _, _, err := parseProduceBatch(raw, 4<<20, 64<<20, false); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(values) * fixture.Large))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, _, err := parseProduceBatch(raw, 4<<20, 64<<20, false); err != nil {
			b.Fatal(err)
		}
	}
}
