package sim

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/rollsafe/rollsafe/compress"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ErrNotCompacted: Compact was asked for a topic without
// cleanup.policy=compact.
var ErrNotCompacted = errors.New("sim: topic is not compacted")

// Compact runs Kafka's log cleaner on the partition now, on every replica
// alike: over the cleanable part of the log (batches below the last
// stable offset, never the last batch, which stands for Kafka's active
// segment) it keeps only the latest record of each key (tombstones
// included: delete.retention.ms is not simulated), drops the records of
// aborted transactions and keeps every transaction marker. A batch left without
// records disappears, its offsets with it, and the log start offset does
// not move — except the last batch of each producer the leader still has
// state for, kept as an empty batch (base and last offset, producer id,
// epoch and sequences intact) so that producer state survives a reload, as
// Kafka's cleaner does. A batch losing some records is rewritten with the
// rest, same offsets and sequences, same codec. Producer state is not
// touched. It returns the offset ranges whose records were removed
// (merged), which a reader then no longer finds.
func (c *Cluster) Compact(topic string, p int32) ([]OffsetRange, error) {
	if !c.cfg.compacted[topic] {
		return nil, fmt.Errorf("%w: %s", ErrNotCompacted, topic)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, ErrClosed
	}
	pt, err := c.partitionLocked(topic, p)
	if err != nil {
		return nil, err
	}
	src := pt.leader
	if src < 0 {
		src = pt.replicas[0]
	}
	lead := pt.logs[src]
	cleanable := lead.find(lead.lastStable(pt.hw)) // entries ending at or below the last stable offset
	if n := len(lead.entries); cleanable >= n {
		cleanable = n - 1
	}
	if cleanable <= 0 {
		return nil, nil
	}
	entries := lead.entries[:cleanable]
	decoded, err := decodeEntries(entries, c.cfg.maxDecompressed)
	if err != nil {
		return nil, err
	}
	// Markers are kept; the records of aborted transactions go, and
	// never count as a key's latest.
	skip := make([]bool, len(entries))
	latest := map[string]int64{}
	for i, b := range decoded {
		e := entries[i]
		if skip[i] = e.h.control() || lead.inAborted(e); skip[i] {
			continue
		}
		for _, r := range b.Records {
			latest[string(r.Key)] = r.Offset
		}
	}
	lastOfProducer := map[int64]int64{}
	for pid, pe := range lead.pstate {
		if n := len(pe.batches); n > 0 {
			lastOfProducer[pid] = pe.batches[n-1].lastOffset
		}
	}
	repl := make(map[*entry]*entry, len(entries))
	var removed []OffsetRange
	for i, e := range entries {
		if e.h.control() {
			repl[e] = e
			continue
		}
		keep := make([]bool, len(decoded[i].Records))
		kept := 0
		for j, r := range decoded[i].Records {
			if !skip[i] && latest[string(r.Key)] == r.Offset {
				keep[j] = true
				kept++
			}
		}
		for j, r := range decoded[i].Records {
			if !keep[j] {
				removed = append(removed, OffsetRange{From: r.Offset, To: r.Offset + 1})
			}
		}
		switch last, ok := lastOfProducer[e.h.producerID]; {
		case kept == len(keep) && kept > 0:
			repl[e] = e
		case kept == 0 && !(e.h.producerID >= 0 && ok && last == e.end()-1):
			repl[e] = nil
		default:
			ne, err := rewriteEntry(e, decoded[i], keep)
			if err != nil {
				return nil, err
			}
			repl[e] = ne
		}
	}
	for _, r := range pt.logs {
		out := r.entries[:0]
		for _, e := range r.entries {
			ne, ok := repl[e]
			if !ok {
				ne = e
			}
			if ne != nil {
				out = append(out, ne)
			}
		}
		clear(r.entries[len(out):])
		r.entries = out
	}
	c.broadcastLocked()
	removed = mergeRanges(removed)
	c.log.Info("compacted", "topic", topic, "partition", p, "removed", removed)
	return removed, nil
}

// inAborted reports whether e is a batch of a transaction r holds the
// abort marker of.
func (r *replica) inAborted(e *entry) bool {
	if !e.h.transactional() {
		return false
	}
	for _, d := range r.done {
		if d.aborted && d.pid == e.h.producerID && e.base >= d.first && e.base < d.last {
			return true
		}
	}
	return false
}

// rewriteEntry is e with only the records keep marks, same base offset,
// last offset delta, producer fields and codec; with none kept, the empty
// batch Kafka's cleaner leaves (no records, no compression).
func rewriteEntry(e *entry, b Batch, keep []bool) (*entry, error) {
	var rb kmsg.RecordBatch
	if err := rb.ReadFrom(e.raw); err != nil {
		return nil, fmt.Errorf("sim: stored batch at %d: %w", e.base, err)
	}
	var recs []byte
	n := int32(0)
	maxTS := int64(-1)
	_, err := eachRecord(mustRecords(b, &rb), rb.NumRecords, func(i int32, r *kmsg.Record) error {
		if !keep[i] {
			return nil
		}
		r.Length = 0
		body := r.AppendTo(nil)[1:] // drop the placeholder length
		recs = binary.AppendVarint(recs, int64(len(body)))
		recs = append(recs, body...)
		n++
		maxTS = max(maxTS, rb.FirstTimestamp+r.TimestampDelta64)
		return nil
	})
	if err != nil {
		return nil, err
	}
	h := e.h
	if n == 0 {
		rb.Attributes &^= 0x07
		rb.FirstTimestamp = rb.MaxTimestamp
		rb.Records = nil
	} else {
		codec := compress.Codec(rb.Attributes & 0x07)
		cm, err := compress.NewCompressor(codec, compress.DefaultLevel)
		if err != nil {
			return nil, err
		}
		if rb.Records, err = cm.Compress(nil, recs); err != nil {
			return nil, err
		}
		rb.MaxTimestamp = maxTS
	}
	rb.NumRecords = n
	rb.Length = int32(49 + len(rb.Records))
	raw := rb.AppendTo(nil)
	binary.BigEndian.PutUint32(raw[17:], crc32.Checksum(raw[21:], castagnoli))
	h.numRecords, h.attributes, h.maxTimestamp, h.firstTimestamp = n, rb.Attributes, rb.MaxTimestamp, rb.FirstTimestamp
	return &entry{base: e.base, h: h, leaderEpoch: e.leaderEpoch, raw: raw, appendedAt: e.appendedAt}, nil
}

// mustRecords returns the batch's records uncompressed: decodeEntry has
// already decompressed them once, so this cannot fail within the limit.
func mustRecords(b Batch, rb *kmsg.RecordBatch) []byte {
	if b.Codec == compress.None {
		return rb.Records
	}
	recs, err := compress.Decompress(nil, rb.Records, b.Codec, 1<<30)
	if err != nil {
		return nil
	}
	return recs
}
