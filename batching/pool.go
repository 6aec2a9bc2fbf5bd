package batching

import (
	"sync"
	"unsafe"
)

// batchPool keeps released batches, with their record lists, for reuse
// (their encoded and compressed bytes' buffers go to bufPool). Unlike a
// sync.Pool it survives garbage collections, so that steady production
// allocates nothing per batch; it holds at most maxBytes of capacity.
type batchPool struct {
	mu       sync.Mutex
	free     []*Batch
	bytes    int64 // buffer capacity held in free
	maxBytes int64
}

func batchCap(b *Batch) int64 {
	return int64(cap(b.raw)+cap(b.comp)) + int64(cap(b.srcs))*int64(unsafe.Sizeof(Source(nil)))
}

// get returns a free batch, or a new one.
func (p *batchPool) get() *Batch {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.free)
	if n == 0 {
		return new(Batch)
	}
	b := p.free[n-1]
	p.free[n-1] = nil
	p.free = p.free[:n-1]
	p.bytes -= batchCap(b)
	return b
}

func (p *batchPool) put(b *Batch) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c := batchCap(b); p.bytes+c <= p.maxBytes {
		p.free = append(p.free, b)
		p.bytes += c
	}
}
