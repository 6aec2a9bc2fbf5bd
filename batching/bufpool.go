package batching

import (
	"math/bits"
	"sync"
)

// bufPool recycles the encoded-records buffers of uncompressed batches by
// power-of-two size class. A batch's size is known only when it closes, and
// sizes vary (batches closed by linger, by size, by Flush), so buffers kept
// with the Batch objects missed most of the time: a freshly allocated MiB
// costs the page faults and zeroing of a new buffer on every copy into it.
// A class-k buffer holds 4 KiB << k; any batch up to that size can take it.
// Like batchPool it survives garbage collections and holds at most maxBytes.
type bufPool struct {
	mu       sync.Mutex
	free     [bufClasses][][]byte
	bytes    int64
	maxBytes int64
}

const (
	minBufShift = 12                   // class 0: 4 KiB
	bufClasses  = 31 - minBufShift + 1 // up to 1 GiB (maxBatchBytes)
	minBufSize  = 1 << minBufShift
)

// bufClassFor returns the class of the smallest buffers holding n bytes.
func bufClassFor(n int) int {
	if n <= minBufSize {
		return 0
	}
	return bits.Len(uint(n-1)) - minBufShift
}

// get returns an empty buffer with room for n bytes.
func (p *bufPool) get(n int) []byte {
	k := bufClassFor(n)
	if k < bufClasses {
		p.mu.Lock()
		if l := len(p.free[k]); l > 0 {
			b := p.free[k][l-1]
			p.free[k][l-1] = nil
			p.free[k] = p.free[k][:l-1]
			p.bytes -= int64(cap(b))
			p.mu.Unlock()
			return b[:0]
		}
		p.mu.Unlock()
		return make([]byte, 0, 1<<(k+minBufShift))
	}
	return make([]byte, 0, n)
}

// put keeps b for reuse, in the largest class its capacity fills.
func (p *bufPool) put(b []byte) {
	c := cap(b)
	if c < minBufSize {
		return
	}
	k := bits.Len(uint(c)) - 1 - minBufShift
	if k >= bufClasses {
		return
	}
	p.mu.Lock()
	if p.bytes+int64(c) <= p.maxBytes {
		p.free[k] = append(p.free[k], b)
		p.bytes += int64(c)
	}
	p.mu.Unlock()
}
