package batching

import (
	"sync"
	"unsafe"
)

// batchPool keeps released batches, with their buffers, for reuse. Unlike a
// sync.Pool it survives garbage collections, so that steady production
// allocates nothing per batch; it holds at most maxBytes (twice
// MaxBufferedBytes) of buffer capacity.
type batchPool struct {
	mu       sync.Mutex
	free     []*Batch
	bytes    int64 // buffer capacity held in free
	maxBytes int64
}

func batchCap(b *Batch) int64 {
	return int64(cap(b.raw)+cap(b.comp)) + int64(cap(b.recs))*int64(unsafe.Sizeof(held{}))
}

// get returns a free batch, preferring one whose buffer holds at least
// want bytes.
func (p *batchPool) get(want int) *Batch {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.free)
	if n == 0 {
		return new(Batch)
	}
	// Small batches (closed by linger or flush) and full ones share the
	// list; take the most recent one that holds want, else the roomiest
	// of the most recent few, so that a busy partition does not regrow a
	// small buffer batch after batch.
	best := n - 1
	for i := n - 2; i >= 0 && i >= n-poolScan && cap(p.free[best].raw) < want; i-- {
		if cap(p.free[i].raw) > cap(p.free[best].raw) {
			best = i
		}
	}
	b := p.free[best]
	p.free[best] = p.free[n-1]
	p.free[n-1] = nil
	p.free = p.free[:n-1]
	p.bytes -= batchCap(b)
	return b
}

// poolScan is how many free batches get looks at for the roomiest.
const poolScan = 8

func (p *batchPool) put(b *Batch) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c := batchCap(b); p.bytes+c <= p.maxBytes {
		p.free = append(p.free, b)
		p.bytes += c
	}
}
