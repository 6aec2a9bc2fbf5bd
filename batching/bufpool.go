package batching

import (
	"math/bits"
	"sync"
)

// bufPool recycles batches' wire buffers by size class: the encoded records
// of uncompressed batches and the compressed copies of compressed ones. A
// batch's size is known only when it is encoded, and sizes vary (batches
// closed by linger, by size, by Flush; compressed sizes from batch to
// batch), so buffers kept with the Batch objects missed most of the time: a
// freshly allocated MiB costs the page faults and zeroing of a new buffer
// on every copy into it. The
// classes are quarter steps between powers of two from 4 KiB (4, 5, 6, 7,
// 8, 10, 12, 14, 16 KiB, ...), so a buffer is at most 25 % larger than its
// batch. Like batchPool it survives garbage collections and holds at most
// maxBytes.
type bufPool struct {
	mu       sync.Mutex
	free     [bufClasses][][]byte
	bytes    int64
	maxBytes int64
}

const (
	minBufShift = 12 // class 0: 4 KiB
	minBufSize  = 1 << minBufShift
	// bufClasses reaches 1 GiB (maxBatchBytes).
	bufClasses = (30-minBufShift)*4 + 1
)

// bufClassSize is the capacity of class k's buffers.
func bufClassSize(k int) int {
	return (4 + k%4) << (minBufShift + k/4 - 2)
}

// bufClassFor returns the smallest class whose buffers hold n bytes.
func bufClassFor(n int) int {
	if n <= minBufSize {
		return 0
	}
	e := bits.Len(uint(n-1)) - 1 // 2^e < n <= 2^(e+1)
	step := 1 << (e - 2)
	q := (n - 1<<e + step - 1) / step // 1..4
	return (e-minBufShift)*4 + q
}

// bufClassOf returns the largest class a buffer of capacity c can serve,
// or -1.
func bufClassOf(c int) int {
	if c < minBufSize {
		return -1
	}
	e := bits.Len(uint(c)) - 1 // 2^e <= c < 2^(e+1)
	return (e-minBufShift)*4 + (c-1<<e)>>(e-2)
}

// get returns an empty buffer with room for n bytes.
func (p *bufPool) get(n int) []byte {
	k := bufClassFor(n)
	if k >= bufClasses {
		return make([]byte, 0, n)
	}
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
	return make([]byte, 0, bufClassSize(k))
}

// put keeps b for reuse, in the largest class it can serve.
func (p *bufPool) put(b []byte) {
	k := bufClassOf(cap(b))
	if k < 0 || k >= bufClasses {
		return
	}
	p.mu.Lock()
	if p.bytes+int64(cap(b)) <= p.maxBytes {
		p.free[k] = append(p.free[k], b)
		p.bytes += int64(cap(b))
	}
	p.mu.Unlock()
}
