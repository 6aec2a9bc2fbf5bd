package client

import (
	"context"
	"errors"
	"sync/atomic"
)

// cancelReg ties a record produced with a cancellable context to that
// context until its callback: when the context ends first, the loop is
// told (cancelIn) and takes the record back if its batch holds no
// sequence yet (loop_cancel.go). The record's delivery (r.cb) goes through
// the registration, which ends it (done, stop) before the user's callback
// runs, so that a record reused afterwards is never taken for the old one.
type cancelReg struct {
	p    *Producer
	r    *Record
	ctx  context.Context
	stop func() bool // stops the context.AfterFunc
	done atomic.Bool // the record's callback has begun
}

// cancelIn: a record's Produce context ended before its callback.
type cancelIn struct{ reg *cancelReg }

// watchContext registers r, produced with ctx, so that the loop hears of
// ctx ending. Records of contexts that never end (context.Background) and
// ProduceSync's records (whose ctx bounds the wait, not the records) are
// not registered and cost nothing.
func (p *Producer) watchContext(ctx context.Context, r *Record) {
	if ctx.Done() == nil || r.direct {
		return
	}
	reg := &cancelReg{p: p, r: r, ctx: ctx}
	r.cb = reg.deliver
	reg.stop = context.AfterFunc(ctx, func() { p.loop.in.post(cancelIn{reg: reg}) })
}

// deliver ends the registration, then delivers the record as usual.
func (reg *cancelReg) deliver(r *Record, err error) {
	reg.done.Store(true)
	reg.stop()
	reg.p.deliver(r, err)
}

// errRecordWithdrawn: the record's context ended before its batch was
// numbered, and the producer took it back unsent.
var errRecordWithdrawn = errors.New("context ended before the record was sent")

// withdrawnError is the error of a record taken back because its context
// ended: it matches ErrNotWritten and the context's error.
func withdrawnError(ctx context.Context) error {
	return notWritten(&wrapped{err: errRecordWithdrawn, also: ctx.Err()})
}
