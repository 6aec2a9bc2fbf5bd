package compress

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

var (
	gzipReaders = sync.Pool{}
	lz4Readers  = sync.Pool{New: func() any { return lz4.NewReader(nil) }}
	zstdReaders = sync.Pool{New: func() any {
		d, _ := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
		return d
	}}
)

// xerialMagic starts the framed snappy form Java clients write.
var xerialMagic = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}

// Decompress appends the decompressed form of src (compressed with codec c)
// to dst. Output beyond limit bytes fails with ErrTooLarge before it is
// allocated; malformed input fails with ErrCorrupt.
func Decompress(dst, src []byte, c Codec, limit int) ([]byte, error) {
	switch c {
	case None:
		if len(src) > limit {
			return dst, fmt.Errorf("%w: %d > %d", ErrTooLarge, len(src), limit)
		}
		return append(dst, src...), nil
	case Gzip:
		r, _ := gzipReaders.Get().(*gzip.Reader)
		var err error
		if r == nil {
			r, err = gzip.NewReader(bytes.NewReader(src))
		} else {
			err = r.Reset(bytes.NewReader(src))
		}
		if err != nil {
			return dst, fmt.Errorf("%w: gzip: %v", ErrCorrupt, err)
		}
		dst, err = readLimited(dst, r, limit)
		gzipReaders.Put(r)
		return dst, wrapCorrupt("gzip", err)
	case Snappy:
		out, err := decodeSnappy(dst, src, limit)
		return out, wrapCorrupt("snappy", err)
	case LZ4:
		r := lz4Readers.Get().(*lz4.Reader)
		r.Reset(bytes.NewReader(src))
		out, err := readLimited(dst, r, limit)
		r.Reset(nil)
		lz4Readers.Put(r)
		return out, wrapCorrupt("lz4", err)
	case Zstd:
		d := zstdReaders.Get().(*zstd.Decoder)
		if err := d.Reset(bytes.NewReader(src)); err != nil {
			zstdReaders.Put(d)
			return dst, wrapCorrupt("zstd", err)
		}
		out, err := readLimited(dst, d, limit)
		_ = d.Reset(nil)
		zstdReaders.Put(d)
		return out, wrapCorrupt("zstd", err)
	}
	return dst, fmt.Errorf("%w: %d", ErrUnknownCodec, int8(c))
}

func wrapCorrupt(codec string, err error) error {
	if err == nil || errors.Is(err, ErrTooLarge) {
		return err
	}
	return fmt.Errorf("%w: %s: %v", ErrCorrupt, codec, err)
}

// readLimited appends everything r yields to dst, failing once more than
// limit bytes have been produced.
func readLimited(dst []byte, r io.Reader, limit int) ([]byte, error) {
	start := len(dst)
	for {
		if len(dst)-start > limit {
			return dst[:start], fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)
		}
		if cap(dst)-len(dst) < 512 {
			grow := cap(dst) - start
			if grow < 4096 {
				grow = 4096
			}
			if room := limit + 1 - (len(dst) - start); grow > room {
				grow = room
			}
			if grow < 512 {
				grow = 512
			}
			dst = append(dst, make([]byte, grow)...)[:len(dst)]
		}
		n, err := r.Read(dst[len(dst):cap(dst)])
		dst = dst[:len(dst)+n]
		if err == io.EOF {
			if len(dst)-start > limit {
				return dst[:start], fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)
			}
			return dst, nil
		}
		if err != nil {
			return dst[:start], err
		}
	}
}

func decodeSnappy(dst, src []byte, limit int) ([]byte, error) {
	if !bytes.HasPrefix(src, xerialMagic) {
		return decodeSnappyBlock(dst, src, limit)
	}
	// Xerial framing: magic (8), version (4), compatible version (4), then
	// chunks of a 4-byte big-endian length and a raw snappy block.
	if len(src) < 16 {
		return dst, errors.New("short xerial header")
	}
	start := len(dst)
	rest := src[16:]
	for len(rest) > 0 {
		if len(rest) < 4 {
			return dst[:start], errors.New("short xerial chunk length")
		}
		n := binary.BigEndian.Uint32(rest)
		rest = rest[4:]
		if uint64(n) > uint64(len(rest)) {
			return dst[:start], fmt.Errorf("xerial chunk of %d bytes, %d left", n, len(rest))
		}
		var err error
		dst, err = decodeSnappyBlock(dst, rest[:n], limit-(len(dst)-start))
		if err != nil {
			return dst[:start], err
		}
		rest = rest[n:]
	}
	return dst, nil
}

func decodeSnappyBlock(dst, src []byte, limit int) ([]byte, error) {
	n, err := snappy.DecodedLen(src)
	if err != nil {
		return dst, err
	}
	if n > limit {
		return dst, fmt.Errorf("%w: %d > %d", ErrTooLarge, n, limit)
	}
	start := len(dst)
	if cap(dst)-start < n {
		nd := make([]byte, start, start+n)
		copy(nd, dst)
		dst = nd
	}
	out, err := snappy.Decode(dst[start:start+n], src)
	if err != nil {
		return dst[:start], err
	}
	return dst[:start+len(out)], nil
}
