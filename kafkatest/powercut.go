package kafkatest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ErrRunning: the node must be stopped for the call.
var ErrRunning = errors.New("kafkatest: node is running")

// diskBatch is one record batch of a partition's log on disk.
type diskBatch struct {
	file       string // the segment's .log file
	pos        int64  // byte position in it
	base, next int64  // first offset and the offset after the last
}

// diskBatches lists the record batches of node id's log of
// topic/partition as its segment files hold them, in offset order; a
// partial batch at a segment's end ends the list.
func (c *Cluster) diskBatches(id int32, topic string, partition int32) ([]diskBatch, error) {
	dir := filepath.Join(c.node(id).dataDir(), fmt.Sprintf("%s-%d", topic, partition))
	segs, err := filepath.Glob(filepath.Join(dir, "*.log"))
	if err != nil {
		return nil, err
	}
	if len(segs) == 0 {
		return nil, fmt.Errorf("kafkatest: no log segment of %s/%d on node %d (%s)", topic, partition, id, dir)
	}
	slices.Sort(segs) // names are 20-digit base offsets
	var out []diskBatch
	for _, seg := range segs {
		b, err := os.ReadFile(seg)
		if err != nil {
			return nil, err
		}
		for pos := 0; pos+61 <= len(b); {
			// RecordBatch v2: baseOffset int64, batchLength int32, ...,
			// lastOffsetDelta int32 at byte 23.
			base := int64(binary.BigEndian.Uint64(b[pos:]))
			length := int(int32(binary.BigEndian.Uint32(b[pos+8:])))
			if length < 49 || pos+12+length > len(b) {
				break
			}
			delta := int64(int32(binary.BigEndian.Uint32(b[pos+23:])))
			out = append(out, diskBatch{file: seg, pos: int64(pos), base: base, next: base + delta + 1})
			pos += 12 + length
		}
	}
	return out, nil
}

// LogEnd returns the log end offset of stopped node id's log of
// topic/partition, read from its segment files.
func (c *Cluster) LogEnd(id int32, topic string, partition int32) (int64, error) {
	if c.Running(id) {
		return 0, fmt.Errorf("%w: %d", ErrRunning, id)
	}
	bs, err := c.diskBatches(id, topic, partition)
	if err != nil {
		return 0, err
	}
	if len(bs) == 0 {
		return 0, nil
	}
	return bs[len(bs)-1].next, nil
}

// CutLog makes stopped node id's log of topic/partition end at offset, as
// a power cut to its host does when the page cache held every batch from
// there on: Kafka acknowledges on replication, not on fsync, and flushes
// only when a segment rolls. offset must end a batch (or be at or past the
// log end: nothing is cut). Started again, the node finds no clean
// shutdown mark and recovers the log from its files: indexes rebuilt,
// producer state reloaded from what is left. It returns the offsets cut.
func (c *Cluster) CutLog(id int32, topic string, partition int32, offset int64) (from, to int64, err error) {
	if c.Running(id) {
		return 0, 0, fmt.Errorf("%w: %d", ErrRunning, id)
	}
	bs, err := c.diskBatches(id, topic, partition)
	if err != nil {
		return 0, 0, err
	}
	i := slices.IndexFunc(bs, func(b diskBatch) bool { return b.next > offset })
	if i < 0 {
		return offset, offset, nil
	}
	if bs[i].base != offset {
		return 0, 0, fmt.Errorf("kafkatest: offset %d is inside the batch %d-%d of %s/%d on node %d", offset, bs[i].base, bs[i].next-1, topic, partition, id)
	}
	cut := bs[i]
	if err := os.Truncate(cut.file, cut.pos); err != nil {
		return 0, 0, err
	}
	// Later segments are lost whole, with their indexes.
	var later []string
	for _, b := range bs[i:] {
		if b.file != cut.file && !slices.Contains(later, b.file) {
			later = append(later, b.file)
		}
	}
	for _, f := range later {
		stem := strings.TrimSuffix(f, ".log")
		for _, ext := range []string{".log", ".index", ".timeindex", ".txnindex"} {
			if err := os.Remove(stem + ext); err != nil && !errors.Is(err, os.ErrNotExist) {
				return 0, 0, err
			}
		}
	}
	return offset, bs[len(bs)-1].next, nil
}
