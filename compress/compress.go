package compress

import (
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// DefaultLevel selects each codec's own default level.
const DefaultLevel = -1000

// Compressor compresses with one codec at one level. It is safe for
// concurrent use: encoders come from pools shared by compressors of the same
// codec and level.
type Compressor struct {
	codec Codec
	level int
	pool  *sync.Pool // *streamEnc (gzip, lz4) or *zstd.Encoder
}

var (
	poolsMu sync.Mutex
	pools   = map[[2]int]*sync.Pool{}
)

func poolFor(c Codec, level int, mk func() any) *sync.Pool {
	poolsMu.Lock()
	defer poolsMu.Unlock()
	k := [2]int{int(c), level}
	p := pools[k]
	if p == nil {
		p = &sync.Pool{New: mk}
		pools[k] = p
	}
	return p
}

// NewCompressor returns a compressor for codec c at level (DefaultLevel for
// the codec's default; gzip takes -2..9, zstd 1..4 as klauspost's
// EncoderLevel, lz4 0..9; snappy ignores it).
func NewCompressor(c Codec, level int) (*Compressor, error) {
	cm := &Compressor{codec: c, level: level}
	switch c {
	case None, Snappy:
	case Gzip:
		if level == DefaultLevel {
			level = gzip.DefaultCompression
		}
		if level < gzip.HuffmanOnly || level > gzip.BestCompression {
			return nil, fmt.Errorf("compress: gzip level %d out of range [%d, %d]", level, gzip.HuffmanOnly, gzip.BestCompression)
		}
		cm.level = level
		cm.pool = poolFor(c, level, func() any {
			return &streamEnc{w: newGzipWriter(level)}
		})
	case LZ4:
		lvl := lz4.Fast
		if level != DefaultLevel {
			if level < 0 || level > 9 {
				return nil, fmt.Errorf("compress: lz4 level %d out of range [0, 9]", level)
			}
			if level > 0 {
				lvl = lz4.CompressionLevel(1 << (8 + level))
			}
		}
		cm.pool = poolFor(c, level, func() any {
			w := lz4.NewWriter(nil)
			_ = w.Apply(lz4.BlockSizeOption(lz4.Block64Kb), lz4.ConcurrencyOption(1), lz4.CompressionLevelOption(lvl))
			return &streamEnc{w: w}
		})
	case Zstd:
		lvl := zstd.SpeedDefault
		if level != DefaultLevel {
			if level < int(zstd.SpeedFastest) || level > int(zstd.SpeedBestCompression) {
				return nil, fmt.Errorf("compress: zstd level %d out of range [%d, %d]", level, zstd.SpeedFastest, zstd.SpeedBestCompression)
			}
			lvl = zstd.EncoderLevel(level)
		}
		cm.pool = poolFor(c, level, func() any {
			e, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(lvl), zstd.WithEncoderConcurrency(1), zstd.WithLowerEncoderMem(true))
			return e
		})
	default:
		return nil, fmt.Errorf("%w: %d", ErrUnknownCodec, int8(c))
	}
	return cm, nil
}

// Codec returns the compressor's codec.
func (cm *Compressor) Codec() Codec { return cm.codec }

// Level returns the compressor's effective level.
func (cm *Compressor) Level() int { return cm.level }

// appender is an io.Writer appending to a slice.
type appender struct{ b []byte }

// streamWriter is what gzip's and lz4's writers have in common.
type streamWriter interface {
	Reset(io.Writer)
	Write([]byte) (int, error)
	Close() error
}

// streamEnc is a pooled stream writer with the appender it writes into,
// so that compressing allocates nothing.
type streamEnc struct {
	w streamWriter
	a appender
}

func (a *appender) Write(p []byte) (int, error) { a.b = append(a.b, p...); return len(p), nil }

// Compress appends the compressed form of src to dst and returns it.
// Snappy output is a raw block, which every Kafka broker and client reads.
func (cm *Compressor) Compress(dst, src []byte) ([]byte, error) {
	switch cm.codec {
	case None:
		return append(dst, src...), nil
	case Snappy:
		return appendSnappy(dst, src), nil
	case Zstd:
		e := cm.pool.Get().(*zstd.Encoder)
		dst = e.EncodeAll(src, dst)
		cm.pool.Put(e)
		return dst, nil
	case Gzip, LZ4:
		st, _ := cm.Stream(dst)
		if err := st.Write(src); err != nil {
			_, _ = st.Close()
			return dst, err
		}
		return st.Close()
	}
	return dst, fmt.Errorf("%w: %d", ErrUnknownCodec, int8(cm.codec))
}

func appendSnappy(dst, src []byte) []byte {
	n := len(dst)
	need := s2.MaxEncodedLen(len(src))
	if cap(dst)-n < need {
		nd := make([]byte, n, n+need)
		copy(nd, dst)
		dst = nd
	}
	out := s2.EncodeSnappy(dst[n:n+need], src)
	return dst[:n+len(out)]
}
