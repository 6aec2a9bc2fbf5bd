package compress

import (
	"errors"
	"fmt"
	"strings"
)

// Codec is a Kafka compression codec, numbered as in the low three bits of a
// record batch's attributes.
type Codec int8

// The codecs, with Kafka's attribute ids.
const (
	None   Codec = 0
	Gzip   Codec = 1
	Snappy Codec = 2
	LZ4    Codec = 3
	Zstd   Codec = 4
)

// Errors returned by this package; test with errors.Is.
var (
	// ErrUnknownCodec: the codec id or name is not one Kafka defines.
	ErrUnknownCodec = errors.New("compress: unknown codec")
	// ErrTooLarge: decompressed output would exceed the caller's limit.
	ErrTooLarge = errors.New("compress: decompressed size exceeds limit")
	// ErrCorrupt: the compressed input is malformed.
	ErrCorrupt = errors.New("compress: corrupt input")
	// ErrStreamClosed: Write or Close on a Stream already closed (or the
	// zero Stream).
	ErrStreamClosed = errors.New("compress: stream closed")
)

// String returns Kafka's name for the codec ("none", "gzip", ...).
func (c Codec) String() string {
	switch c {
	case None:
		return "none"
	case Gzip:
		return "gzip"
	case Snappy:
		return "snappy"
	case LZ4:
		return "lz4"
	case Zstd:
		return "zstd"
	}
	return fmt.Sprintf("codec(%d)", int8(c))
}

// Valid reports whether c is one of Kafka's codecs.
func (c Codec) Valid() bool { return c >= None && c <= Zstd }

// ParseCodec maps a name ("gzip", "none", ...; case-insensitive) to a Codec.
func ParseCodec(name string) (Codec, error) {
	for c := None; c <= Zstd; c++ {
		if strings.EqualFold(name, c.String()) {
			return c, nil
		}
	}
	return None, fmt.Errorf("%w: %q (want none, gzip, snappy, lz4 or zstd)", ErrUnknownCodec, name)
}

// Codecs lists every codec, None first.
func Codecs() []Codec { return []Codec{None, Gzip, Snappy, LZ4, Zstd} }
