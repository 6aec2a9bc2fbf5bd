package client

import "time"

// BufferedInterval is how often the producer samples its buffer for
// Hooks.Buffered: the hook is called at most this often, only when the
// records or bytes buffered changed since its last call (so once more when
// the buffer empties).
const BufferedInterval = 100 * time.Millisecond

// Buffered returns the records and bytes the producer holds and has not
// yet resolved: waiting for their topic's metadata, in open or closed
// batches, or in flight to a broker. Bytes are the records' uncompressed
// sizes. It is the depth MaxBuffered limits.
func (p *Producer) Buffered() (records int, bytes int64) {
	// Held records are in the accumulator's count: their room is reserved.
	return p.acc.Buffered()
}

// bufferedLoop calls Hooks.Buffered every BufferedInterval while the
// buffer's depth changes, until the producer closes.
func (p *Producer) bufferedLoop() {
	t := time.NewTicker(BufferedInterval)
	defer t.Stop()
	lastR, lastB := 0, int64(0)
	for {
		select {
		case <-p.ctx.Done():
			return
		case <-t.C:
		}
		r, b := p.Buffered()
		if r != lastR || b != lastB {
			lastR, lastB = r, b
			p.hooks.Buffered(r, b)
		}
	}
}
