package sim

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// broker is one simulated broker: a listener and its connections. Its
// replicas live in the partitions.
type broker struct {
	c    *Cluster
	id   int32
	addr string
	up   bool
	// crashed: the last stop was a crash (KillBroker, KillProcess,
	// VanishBroker), not a controlled shutdown.
	crashed bool
	ln      net.Listener
	ctx     context.Context // canceled when the broker stops
	cancel  context.CancelFunc
	conns   map[net.Conn]struct{}
	wg      sync.WaitGroup // connections of the current run
	lnWG    sync.WaitGroup // every accept loop (ghosts' too), for Close
	lnDone  chan struct{}  // closed when the current listener's accept loop ends
	delay   time.Duration
	// throttle: produce responses carry it and mute their connection for
	// it (ThrottleProduce).
	throttle time.Duration
	lag      time.Duration
	lagSet   bool
	connID   uint64
	// Vanished (VanishBroker): connections to the broker's addresses
	// stay open and are never answered.
	silent bool
	held   map[net.Conn]string // silent connections, by the address they reached
	ghosts []net.Listener      // addresses a vanished broker left (StartBrokerAt)
	heldWG sync.WaitGroup      // one per held connection
	// thaw is open while the broker is frozen (FreezeBroker) and closed
	// when it thaws; nil when it runs.
	thaw chan struct{}
}

func newBroker(c *Cluster, id int32) *broker {
	return &broker{c: c, id: id, conns: map[net.Conn]struct{}{}, held: map[net.Conn]string{}}
}

// start listens on the broker's address and serves; the caller holds c.mu
// or has not published the broker yet.
//
// The listener is opened once and kept for the cluster's life: a stopped
// broker closes every connection it accepts (clients see the connection
// fail, as with a broker that is down) but keeps its port, so a restart
// never loses the address to another listener.
func (b *broker) start() error {
	if b.ln == nil {
		ln, err := b.c.listen(b.addr)
		if err != nil {
			return fmt.Errorf("sim: broker %d: %w", b.id, err)
		}
		b.addr = ln.Addr().String()
		b.ln = ln
		b.lnWG.Add(1)
		done := make(chan struct{})
		b.lnDone = done
		go func() { defer close(done); b.acceptLoop(ln) }()
	}
	b.up = true
	b.ctx, b.cancel = context.WithCancel(context.Background())
	b.c.log.Info("broker started", "broker", b.id, "addr", b.addr)
	return nil
}

// closeListener stops the accept loops for good and closes every silent
// connection (the cluster is closing); the caller then waits on b.lnWG and
// b.heldWG.
func (b *broker) closeListener() {
	if b.ln != nil {
		_ = b.ln.Close()
	}
	for _, ln := range b.ghosts {
		_ = ln.Close()
	}
	for nc := range b.held {
		_ = nc.Close()
	}
	clear(b.held)
}

// stopLocked closes every connection; the caller then waits on b.wg
// without holding c.mu.
func (b *broker) stopLocked() {
	b.up = false
	b.cancel()
	for nc := range b.conns {
		_ = nc.Close()
	}
	clear(b.conns)
	b.c.log.Info("broker stopped", "broker", b.id)
}

func (b *broker) acceptLoop(ln net.Listener) {
	defer b.lnWG.Done()
	for {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		b.c.mu.Lock()
		if slices.Contains(b.ghosts, ln) || (ln == b.ln && !b.up && b.silent) {
			// An address a vanished broker left, or the broker vanished:
			// the connection is accepted and never answered.
			b.holdLocked(nc, ln.Addr().String())
			b.c.mu.Unlock()
			continue
		}
		if ln != b.ln || !b.up {
			// Down: refuse the connection.
			b.c.mu.Unlock()
			_ = nc.Close()
			continue
		}
		ctx := b.ctx
		b.conns[nc] = struct{}{}
		b.connID++
		id := b.connID
		b.wg.Add(1)
		b.c.mu.Unlock()
		go b.serveConn(ctx, nc, id)
	}
}

// action is what happens after a request was handled.
type action int

const (
	actRespond      action = iota
	actNoResponse          // acks=0
	actDrop                // fault: the response is never sent
	actClose               // fault or broker stop: the connection is closed
	actRespondClose        // the response is sent, then the connection closed (SASL failures)
	actSilent              // the broker vanished: never answered, the connection stays open
)

func (a action) String() string {
	switch a {
	case actRespond:
		return "sent"
	case actNoResponse:
		return "no response (acks=0)"
	case actDrop:
		return "dropped"
	case actRespondClose:
		return "sent, connection closed"
	case actSilent:
		return "unanswered, broker vanished"
	}
	return "connection closed"
}

type outcome struct {
	resp kmsg.Response
	act  action
	// reset: once answered (if at all), the connection is reset, the
	// client seeing it resetAfter after the answer (ResetAfterResponse).
	reset      bool
	resetAfter time.Duration
}

// connKey is the context key of the connection number a request came on.
type connKey struct{}

// connOf is the number of the connection a request came on (0 outside one).
func connOf(ctx context.Context) uint64 {
	id, _ := ctx.Value(connKey{}).(uint64)
	return id
}

// serveConn handles requests one at a time, as Kafka does per connection.
func (b *broker) serveConn(ctx context.Context, nc net.Conn, connID uint64) {
	defer b.wg.Done()
	defer func() {
		b.c.mu.Lock()
		defer b.c.mu.Unlock()
		if _, ok := b.conns[nc]; ok && b.silent {
			// The broker vanished while serving: the connection stays
			// open, and silent.
			delete(b.conns, nc)
			b.holdLocked(nc, b.addr)
			return
		}
		_ = nc.Close()
		delete(b.conns, nc)
	}()
	conn, ok := b.secureConn(ctx, nc, connID)
	if !ok {
		return
	}
	auth := b.newSASLConn(connID)
	ctx = context.WithValue(ctx, connKey{}, connID)
	var out []byte
	for {
		frame, err := readFrame(conn)
		if err != nil {
			return
		}
		if !b.awaitThaw(ctx) {
			return
		}
		if auth.rawNext() {
			// After a v0 SaslHandshake: a raw SASL token, answered raw.
			tok, ok := auth.rawStep(frame)
			if !ok {
				return
			}
			out = binary.BigEndian.AppendUint32(out[:0], uint32(len(tok)))
			if _, err := conn.Write(append(out, tok...)); err != nil {
				return
			}
			continue
		}
		start := time.Now()
		h, req, err := decodeRequest(frame)
		var oc outcome
		switch {
		case err == nil:
			handled := false
			if auth != nil {
				oc, handled = auth.gate(req)
			}
			if !handled {
				hctx := withPrincipal(ctx, auth)
				if f := b.lateFault(req); f != nil {
					if f.kind == faultProcessAfterDrop {
						b.processAfterDrop(hctx, nc, h, req, f, start, connID)
						return
					}
					if !sleepCtx(ctx, f.delay) {
						return
					}
					hctx = context.WithValue(hctx, lateKey{}, f)
				}
				oc = b.handle(hctx, h, req)
			}
		case h.key == 18 && errors.Is(err, ErrUnsupportedRequest):
			// KIP-511: answer an unknown ApiVersions version with v0
			// and the versions served.
			resp := kmsg.NewPtrApiVersionsResponse()
			resp.ErrorCode = errUnsupportedVersion
			resp.ApiKeys = apiVersionsFor(&b.c.cfg)
			oc = outcome{resp: resp}
		default:
			b.c.log.Warn("closing connection", "broker", b.id, "conn", connID, "err", err)
			return
		}
		if ctx.Err() != nil {
			oc.act = b.stoppedAct()
		}
		muted := b.throttled(oc.resp)
		recReq, recResp := redactSASL(req, oc.resp)
		b.c.rec.exchange(Exchange{
			Start: start, End: time.Now(), Broker: b.id, Conn: connID, ClientID: deref(h.clientID),
			Key: h.key, Version: h.version, Correlation: h.correlation,
			Request: recReq, Response: recResp, Outcome: oc.act.String(),
		})
		switch oc.act {
		case actNoResponse, actDrop:
			if oc.reset {
				resetConn(ctx, nc, oc.resetAfter)
				return
			}
			continue
		case actClose, actSilent:
			return
		}
		if !b.sleepDelay(ctx) || !b.awaitThaw(ctx) {
			return
		}
		out = appendResponse(out[:0], h.correlation, oc.resp)
		if _, err := conn.Write(out); err != nil || oc.act == actRespondClose {
			return
		}
		if oc.reset {
			resetConn(ctx, nc, oc.resetAfter)
			return
		}
		if !mute(ctx, muted) {
			return
		}
	}
}

// sleepDelay waits out the broker's response delay; false if it stopped.
func (b *broker) sleepDelay(ctx context.Context) bool {
	b.c.mu.Lock()
	d := b.delay
	b.c.mu.Unlock()
	if d <= 0 {
		return true
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

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// handle dispatches a decoded request.
func (b *broker) handle(ctx context.Context, h reqHeader, req kmsg.Request) outcome {
	if v, ok := txnV1Max[h.key]; ok && h.version > v && !b.c.cfg.txnV2() {
		// A version of transactions v2 the cluster does not advertise.
		return outcome{act: actClose}
	}
	switch r := req.(type) {
	case *kmsg.ApiVersionsRequest:
		return outcome{resp: b.apiVersions(r)}
	case *kmsg.MetadataRequest:
		return outcome{resp: b.metadata(ctx, r)}
	case *kmsg.InitProducerIDRequest:
		return outcome{resp: b.initProducerID(ctx, r)}
	case *kmsg.ProduceRequest:
		return b.produce(ctx, r)
	case *kmsg.FetchRequest:
		return outcome{resp: b.fetch(ctx, r)}
	case *kmsg.ListOffsetsRequest:
		return outcome{resp: b.listOffsets(ctx, r)}
	case *kmsg.FindCoordinatorRequest:
		return outcome{resp: b.findCoordinator(ctx, r)}
	case *kmsg.AddPartitionsToTxnRequest:
		return outcome{resp: b.addPartitionsToTxn(ctx, r)}
	case *kmsg.AddOffsetsToTxnRequest:
		return outcome{resp: b.addOffsetsToTxn(ctx, r)}
	case *kmsg.EndTxnRequest:
		return outcome{resp: b.endTxn(ctx, r)}
	case *kmsg.TxnOffsetCommitRequest:
		return outcome{resp: b.txnOffsetCommit(ctx, r)}
	case *kmsg.OffsetForLeaderEpochRequest:
		return outcome{resp: b.offsetForLeaderEpoch(ctx, r)}
	case *kmsg.DescribeProducersRequest:
		if !b.c.cfg.describeProducers() {
			// A broker that does not know the API closes the connection.
			return outcome{act: actClose}
		}
		return outcome{resp: b.describeProducers(ctx, r)}
	case *kmsg.DescribeTopicPartitionsRequest:
		if !b.c.cfg.describeTopicPartitions() {
			return outcome{act: actClose}
		}
		return outcome{resp: b.describeTopicPartitions(ctx, r)}
	case *kmsg.SASLHandshakeRequest, *kmsg.SASLAuthenticateRequest:
		// Reached only without SASL (else the connection's gate answers).
		return outcome{resp: illegalSASLState(r)}
	}
	return outcome{act: actClose}
}
