package protocol

import (
	"encoding/binary"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// produceFrame is a Produce request's frame as segments: the request's own
// fields encoded into head, and every partition's Records referenced where
// they belong instead of copied, so that a request of megabytes of batches
// goes to the socket with one writev and no copy. Its buffers are reused
// from request to request.
type produceFrame struct {
	head   []byte   // size prefix, header and every field but the records
	splice []splice // where the records go in head, in order
	segs   [][]byte // head pieces and records, interleaved, for net.Buffers
}

// splice is one partition's records, inserted before head[at:].
type splice struct {
	at      int
	records []byte
}

// size returns the frame's length, size prefix included.
func (f *produceFrame) size() int {
	n := len(f.head)
	for _, s := range f.splice {
		n += len(s.records)
	}
	return n
}

// encode builds the frame for req (version 3..12, already set) with the
// given correlation id and client id. It returns the segments to write; they
// stay valid until the next encode or release.
func (f *produceFrame) encode(req *kmsg.ProduceRequest, corr int32, clientID string) [][]byte {
	flex := req.IsFlexible()
	h := f.head[:0]
	h = append(h, 0, 0, 0, 0) // size, patched below
	h = binary.BigEndian.AppendUint16(h, uint16(req.Key()))
	h = binary.BigEndian.AppendUint16(h, uint16(req.GetVersion()))
	h = binary.BigEndian.AppendUint32(h, uint32(corr))
	h = binary.BigEndian.AppendUint16(h, uint16(len(clientID)))
	h = append(h, clientID...)
	if flex {
		h = append(h, 0) // header v2: empty tagged fields
	}
	f.splice = f.splice[:0]

	h = appendNullableString(h, req.TransactionID, flex)
	h = binary.BigEndian.AppendUint16(h, uint16(req.Acks))
	h = binary.BigEndian.AppendUint32(h, uint32(req.TimeoutMillis))
	h = appendArrayLen(h, len(req.Topics), flex)
	for i := range req.Topics {
		t := &req.Topics[i]
		h = appendString(h, t.Topic, flex)
		h = appendArrayLen(h, len(t.Partitions), flex)
		for j := range t.Partitions {
			p := &t.Partitions[j]
			h = binary.BigEndian.AppendUint32(h, uint32(p.Partition))
			h = appendBytesLen(h, p.Records, flex)
			if len(p.Records) > 0 {
				f.splice = append(f.splice, splice{at: len(h), records: p.Records})
			}
			if flex {
				h = appendTags(h, &p.UnknownTags)
			}
		}
		if flex {
			h = appendTags(h, &t.UnknownTags)
		}
	}
	if flex {
		h = appendTags(h, &req.UnknownTags)
	}
	f.head = h

	f.segs = f.segs[:0]
	prev := 0
	for _, s := range f.splice {
		if s.at > prev {
			f.segs = append(f.segs, h[prev:s.at])
		}
		f.segs = append(f.segs, s.records)
		prev = s.at
	}
	if prev < len(h) {
		f.segs = append(f.segs, h[prev:])
	}
	binary.BigEndian.PutUint32(h, uint32(f.size()-4))
	return f.segs
}

// flatten appends the whole frame to dst (for connections without writev).
func (f *produceFrame) flatten(dst []byte) []byte {
	for _, s := range f.segs {
		dst = append(dst, s...)
	}
	return dst
}

// release drops the references to the records, so that the connection does
// not pin batches the producer has released, and bounds the kept buffer.
func (f *produceFrame) release() {
	clear(f.splice)
	f.splice = f.splice[:0]
	clear(f.segs)
	f.segs = f.segs[:0]
	if cap(f.head) > maxKeptHeadBuffer {
		f.head = nil
	}
	if cap(f.splice) > maxKeptSplices {
		f.splice, f.segs = nil, nil
	}
}

const (
	maxKeptHeadBuffer = 64 << 10
	maxKeptSplices    = 4096
)

// produceSpliceable reports whether req can be encoded by produceFrame:
// versions 3..12 (topics by name, record batches v2).
func produceSpliceable(req *kmsg.ProduceRequest) bool {
	return req.Version >= 3 && req.Version <= 12
}

func appendUvarint(dst []byte, v uint32) []byte {
	return binary.AppendUvarint(dst, uint64(v))
}

func appendArrayLen(dst []byte, n int, flex bool) []byte {
	if flex {
		return appendUvarint(dst, uint32(n)+1)
	}
	return binary.BigEndian.AppendUint32(dst, uint32(n))
}

func appendString(dst []byte, s string, flex bool) []byte {
	if flex {
		dst = appendUvarint(dst, uint32(len(s))+1)
	} else {
		dst = binary.BigEndian.AppendUint16(dst, uint16(len(s)))
	}
	return append(dst, s...)
}

func appendNullableString(dst []byte, s *string, flex bool) []byte {
	if s == nil {
		if flex {
			return append(dst, 0)
		}
		return binary.BigEndian.AppendUint16(dst, 0xffff)
	}
	return appendString(dst, *s, flex)
}

// appendBytesLen appends the length prefix of a nullable bytes field; the
// bytes themselves are spliced in after it.
func appendBytesLen(dst, b []byte, flex bool) []byte {
	switch {
	case b == nil && flex:
		return append(dst, 0)
	case b == nil:
		return binary.BigEndian.AppendUint32(dst, 0xffffffff)
	case flex:
		return appendUvarint(dst, uint32(len(b))+1)
	default:
		return binary.BigEndian.AppendUint32(dst, uint32(len(b)))
	}
}

// appendTags appends a tagged-field section holding only unknown tags.
func appendTags(dst []byte, t *kmsg.Tags) []byte {
	if t.Len() == 0 {
		return append(dst, 0)
	}
	dst = appendUvarint(dst, uint32(t.Len()))
	return t.AppendEach(dst)
}
