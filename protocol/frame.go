package protocol

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
)

// DefaultMaxFrameBytes is the default limit on a response frame's size.
const DefaultMaxFrameBytes int32 = 100 << 20

// appendRequest appends a complete frame for req (size prefix, request
// header v1 or v2, body) to dst. The request's version must already be set.
func appendRequest(dst []byte, req interface {
	Key() int16
	GetVersion() int16
	IsFlexible() bool
	AppendTo([]byte) []byte
}, correlationID int32, clientID string) []byte {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0) // size, patched below
	dst = binary.BigEndian.AppendUint16(dst, uint16(req.Key()))
	dst = binary.BigEndian.AppendUint16(dst, uint16(req.GetVersion()))
	dst = binary.BigEndian.AppendUint32(dst, uint32(correlationID))
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(clientID)))
	dst = append(dst, clientID...)
	if req.IsFlexible() {
		dst = append(dst, 0) // header v2: empty tagged fields
	}
	dst = req.AppendTo(dst)
	binary.BigEndian.PutUint32(dst[start:], uint32(len(dst)-start-4))
	return dst
}

// responseHeaderFlexible reports whether the response to an API at a version
// whose request is flexible uses response header v1. ApiVersions responses
// always use header v0 so that any client can read them.
func responseHeaderFlexible(key int16, flexible bool) bool {
	return flexible && key != 18
}

// readFrame reads one size-prefixed frame from r. A negative size or a size
// above limit is ErrFrameTooLarge and reads nothing more; the buffer grows
// with the data that actually arrives rather than with the announced size.
func readFrame(r io.Reader, limit int32, buf *bytes.Buffer) ([]byte, error) {
	var sz [4]byte
	if _, err := io.ReadFull(r, sz[:]); err != nil {
		return nil, err
	}
	n := int32(binary.BigEndian.Uint32(sz[:]))
	if n < 0 || n > limit {
		return nil, frameSizeError(sz, n, limit)
	}
	buf.Reset()
	got, err := io.CopyN(buf, r, int64(n))
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("reading %d-byte frame (got %d): %w", n, got, err)
	}
	return buf.Bytes(), nil
}

// parseResponseHeader checks a response frame's correlation id against want
// and returns the body after the header (v1 headers carry tagged fields).
func parseResponseHeader(frame []byte, want int32, flexible bool) ([]byte, error) {
	if len(frame) < 4 {
		return nil, fmt.Errorf("%w: %d-byte frame has no correlation id", ErrMalformedResponse, len(frame))
	}
	if corr := int32(binary.BigEndian.Uint32(frame)); corr != want {
		return nil, fmt.Errorf("%w: got %d, expected %d", ErrCorrelationMismatch, corr, want)
	}
	body := frame[4:]
	if flexible {
		return skipTags(body)
	}
	return body, nil
}

// skipTags skips a KIP-482 tagged-field section.
func skipTags(b []byte) ([]byte, error) {
	n, b, err := uvarint(b)
	if err != nil {
		return nil, err
	}
	for i := uint64(0); i < n; i++ {
		if _, b, err = uvarint(b); err != nil { // tag
			return nil, err
		}
		var size uint64
		if size, b, err = uvarint(b); err != nil {
			return nil, err
		}
		if size > uint64(len(b)) {
			return nil, fmt.Errorf("%w: tagged field of %d bytes, %d left", ErrMalformedResponse, size, len(b))
		}
		b = b[size:]
	}
	return b, nil
}

func uvarint(b []byte) (uint64, []byte, error) {
	v, n := binary.Uvarint(b)
	if n <= 0 || v > 1<<31 {
		return 0, nil, fmt.Errorf("%w: bad uvarint in response header", ErrMalformedResponse)
	}
	return v, b[n:], nil
}
