package client

// Turns: the background goroutines (the metadata loop, InitProducerId,
// topic waits, tail reads, transaction coordinator requests) share the metadata view and the connection
// pools. Each starts an action (a refresh, a request, a read) only when
// the loop lets it: it posts a turnIn and waits. The loop lets the turns
// of one pass go after it has acted on its inputs and woken the senders,
// in the order the inputs came (canonical under SyncTest: by kind, then
// name). Under SyncTest the loop also waits, before each turn, until the
// bubble is idle again, so one goroutine's action is under way (its
// request written, its dial begun) before the next one's starts: which of
// two goroutines woken at one instant uses a shared connection first is
// decided by the loop, not by the scheduler. Outside a bubble a turn costs
// a pass of the loop; these actions are rare (a refresh, a recovery).
// Senders take none: each is the only writer on its connection, but for
// InitProducerId, whose turn comes after the senders the loop woke.

// turnKind names a kind of background goroutine; turns of one instant go
// in this order.
type turnKind int8

const (
	turnMetadata turnKind = iota + 1 // the metadata loop's refresh
	turnIdentity                     // an InitProducerId attempt
	turnTopic                        // a topic wait's refresh
	turnTail                         // a tail read's attempt
	turnTxn                          // a request to the transaction coordinator
)

// turnIn: a background goroutine asks for its turn; closing grant lets
// it go.
type turnIn struct {
	kind  turnKind
	key   string // which one: a topic, a partition
	grant chan struct{}
}

// turn waits until the loop lets the calling background goroutine act, or
// the loop has exited, or the producer is closing.
func (p *Producer) turn(kind turnKind, key string) {
	t := turnIn{kind: kind, key: key, grant: make(chan struct{})}
	p.loop.in.post(t)
	select {
	case <-t.grant:
	case <-p.loop.exited:
	case <-p.ctx.Done():
	}
}

// letGo lets the goroutines whose turn came in this pass act.
func (l *loop) letGo() {
	for i, t := range l.turns {
		l.settle()
		close(t.grant)
		l.turns[i] = turnIn{}
	}
	l.turns = l.turns[:0]
}

// settle returns, under SyncTest, once every other goroutine of the bubble
// is blocked: whatever the current instant brings has happened.
func (l *loop) settle() {
	if f := l.p.cfg.settle; f != nil {
		f()
	}
}
