package sim

import (
	"context"
	"net"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// ProcessAfterDisconnect makes the partition's next n produce requests (as
// they reach its leader) lose their connection as soon as the broker has
// read them: the client sees the connection fail with the request
// outstanding. The broker still processes each d later, as Kafka completes
// a request it had read: the batch is appended, or refused by the producer
// state of that moment, and the response is lost. Requests the client had
// pipelined behind it on that connection are lost with it (the connection
// was reset). A broker stopped meanwhile never processes it.
func (c *Cluster) ProcessAfterDisconnect(topic string, p int32, n int, d time.Duration) error {
	return c.addFault(topic, p, &fault{kind: faultProcessAfterDrop, n: n, delay: max(d, 0)})
}

// DelayProcessing holds the partition's next n produce requests d before
// the broker processes them, as a stalled disk or a long pause does; the
// connection stays open and requests behind it on the connection wait,
// Kafka handling one request at a time per connection. A client that gives
// up and disconnects meanwhile does not stop the append: the batch lands
// after it gave up and its response is lost, and requests it had already
// written on that connection are still processed in order, as Kafka does
// for a connection the client closed.
func (c *Cluster) DelayProcessing(topic string, p int32, n int, d time.Duration) error {
	return c.addFault(topic, p, &fault{kind: faultHold, n: n, delay: max(d, 0)})
}

type lateKey struct{}

// lateFault returns the late fault a produce request read by b strikes:
// the first of its partitions led by b whose oldest pending fault is late.
func (b *broker) lateFault(req kmsg.Request) *fault {
	r, ok := req.(*kmsg.ProduceRequest)
	if !ok {
		return nil
	}
	c := b.c
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rt := range r.Topics {
		for _, rp := range rt.Partitions {
			pt, err := c.partitionLocked(rt.Topic, rp.Partition)
			if err != nil || pt.leader != b.id || len(pt.faults) == 0 || !pt.faults[0].late() {
				continue
			}
			return pt.strike()
		}
	}
	return nil
}

// sleepCtx waits d; false if ctx ended first.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// processAfterDrop resets the connection, then processes req d later and
// records it; the response goes nowhere.
func (b *broker) processAfterDrop(ctx context.Context, nc net.Conn, h reqHeader, req kmsg.Request, f *fault, start time.Time, connID uint64) {
	if tc, ok := nc.(*net.TCPConn); ok {
		_ = tc.SetLinger(0) // a reset, as a network failure looks
	}
	_ = nc.Close()
	if !sleepCtx(ctx, f.delay) {
		return
	}
	oc := b.handle(context.WithValue(ctx, lateKey{}, f), h, req)
	b.c.rec.exchange(Exchange{
		Start: start, End: time.Now(), Broker: b.id, Conn: connID, ClientID: deref(h.clientID),
		Key: h.key, Version: h.version, Correlation: h.correlation,
		Request: req, Response: oc.resp, Outcome: "processed after the connection dropped, response lost",
	})
}

// lateFaultOf is the late fault a request was processed under, if any.
func lateFaultOf(ctx context.Context) *fault {
	f, _ := ctx.Value(lateKey{}).(*fault)
	return f
}
