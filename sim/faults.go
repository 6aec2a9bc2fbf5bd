package sim

import (
	"fmt"
	"slices"
	"time"
)

type faultKind int

const (
	faultError faultKind = iota // answer with an error code
	faultDrop                   // never answer
	faultClose                  // close the connection instead of answering
	// Late faults strike when the broker reads the request, before it is
	// processed (late.go).
	faultProcessAfterDrop // drop the connection, process the request later
	faultHold             // hold the request before processing it
	// Held (or not), answered as usual, then the connection is reset
	// (reset.go).
	faultResetAfterAnswer
)

// late reports whether f strikes when the request is read.
func (f *fault) late() bool {
	return f.kind == faultProcessAfterDrop || f.kind == faultHold || f.kind == faultResetAfterAnswer
}

// fault strikes the next n produce requests of a partition.
type fault struct {
	kind        faultKind
	code        int16
	afterAppend bool
	n           int
	delay       time.Duration // late faults
	reset       Reset         // faultResetAfterAnswer (its Hold is delay)
}

func (f *fault) act() action {
	switch f.kind {
	case faultDrop:
		return actDrop
	case faultClose:
		return actClose
	}
	return actRespond
}

func (f *fault) String() string {
	when := "before append"
	if f.afterAppend {
		when = "after append"
	}
	switch f.kind {
	case faultDrop:
		return "drop response " + when
	case faultClose:
		return "close connection " + when
	case faultProcessAfterDrop:
		return fmt.Sprintf("connection dropped once read, processed %v later", f.delay)
	case faultHold:
		return fmt.Sprintf("held %v before processing", f.delay)
	case faultResetAfterAnswer:
		s := fmt.Sprintf("answered, connection reset %v after the answer", f.reset.After)
		if f.reset.ExpiryCheck {
			s = "expiry check run, " + s
		}
		if f.delay > 0 {
			s = fmt.Sprintf("held %v, %s", f.delay, s)
		}
		return s
	}
	return fmt.Sprintf("error %d %s", f.code, when)
}

// takeFault consumes one strike of the oldest pending fault, if any. A
// late fault at the head waits for the next request read.
func (pt *partition) takeFault() *fault {
	if len(pt.faults) == 0 || pt.faults[0].late() {
		return nil
	}
	return pt.strike()
}

// strike consumes one strike of the oldest pending fault.
func (pt *partition) strike() *fault {
	f := pt.faults[0]
	f.n--
	if f.n <= 0 {
		pt.faults = pt.faults[1:]
	}
	return f
}

func (c *Cluster) addFault(topic string, p int32, f *fault) error {
	if f.n <= 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	pt, err := c.partitionLocked(topic, p)
	if err != nil {
		return err
	}
	pt.faults = append(pt.faults, f)
	return nil
}

// InjectError answers the partition's next n produce requests (at whichever
// broker leads it) with code, refusing each batch before it is appended.
// Faults queue in the order they were added; each strike is used by the
// next produce request for the partition that reaches its leader (a batch
// refused for another reason uses it up too).
func (c *Cluster) InjectError(topic string, p int32, code int16, n int) error {
	return c.addFault(topic, p, &fault{kind: faultError, code: code, n: n})
}

// InjectErrorAfterAppend is InjectError, except that each batch is written
// first (as NOT_ENOUGH_REPLICAS_AFTER_APPEND or a REQUEST_TIMED_OUT are), so
// a retry finds it.
func (c *Cluster) InjectErrorAfterAppend(topic string, p int32, code int16, n int) error {
	return c.addFault(topic, p, &fault{kind: faultError, code: code, n: n, afterAppend: true})
}

// DropResponses writes the partition's next n produced batches and never
// answers their requests: the whole response of each is lost, the
// connection stays open.
func (c *Cluster) DropResponses(topic string, p int32, n int) error {
	return c.addFault(topic, p, &fault{kind: faultDrop, n: n, afterAppend: true})
}

// DropRequests loses the partition's next n produce requests: the broker
// neither processes nor answers them, the connection stays open.
func (c *Cluster) DropRequests(topic string, p int32, n int) error {
	return c.addFault(topic, p, &fault{kind: faultDrop, n: n})
}

// CloseConnAfterAppend writes the partition's next n produced batches and
// then closes the connection instead of answering.
func (c *Cluster) CloseConnAfterAppend(topic string, p int32, n int) error {
	return c.addFault(topic, p, &fault{kind: faultClose, n: n, afterAppend: true})
}

// ClearFaults forgets the partition's pending produce faults.
func (c *Cluster) ClearFaults(topic string, p int32) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	pt, err := c.partitionLocked(topic, p)
	if err != nil {
		return err
	}
	pt.faults = nil
	return nil
}

// PendingFaults returns how many strikes of produce faults (InjectError,
// DropResponses, CloseConnAfterAppend) wait for topic/p's next produce
// requests: 0 once every fault queued on the partition has struck.
func (c *Cluster) PendingFaults(topic string, p int32) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	pt, err := c.partitionLocked(topic, p)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, f := range pt.faults {
		n += f.n
	}
	return n, nil
}

// DelayResponses delays every response of a broker by d (0 stops).
func (c *Cluster) DelayResponses(broker int32, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, err := c.brokerLocked(broker)
	if err != nil {
		return err
	}
	b.delay = d
	return nil
}

// SetFollowerLag makes broker, as a follower, copy each batch only d after
// its leader appended it. An in-sync follower that lags holds back the high
// watermark, and so acks=-1 answers, by d.
func (c *Cluster) SetFollowerLag(broker int32, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, err := c.brokerLocked(broker)
	if err != nil {
		return err
	}
	b.lag, b.lagSet = d, true
	c.broadcastLocked()
	return nil
}

// PauseReplication stops broker's replica of the partition from copying and
// drops it from the ISR at once (as replica.lag.time.max.ms would), so the
// high watermark moves on without it.
func (c *Cluster) PauseReplication(topic string, p int32, broker int32) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	pt, err := c.partitionLocked(topic, p)
	if err != nil {
		return err
	}
	if pt.logs[broker] == nil {
		return fmt.Errorf("%w: broker %d, %s/%d", ErrNotReplica, broker, topic, p)
	}
	pt.paused[broker] = true
	if pt.leader != broker {
		pt.leaveISR(broker)
		c.updateHWLocked(pt)
	}
	c.broadcastLocked()
	return nil
}

// ResumeReplication undoes PauseReplication; the replica rejoins the ISR
// once it has caught up to the high watermark.
func (c *Cluster) ResumeReplication(topic string, p int32, broker int32) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	pt, err := c.partitionLocked(topic, p)
	if err != nil {
		return err
	}
	delete(pt.paused, broker)
	c.broadcastLocked()
	return nil
}

// ExpireProducer forgets a producer's state on every replica of every
// partition, as producer.id.expiration.ms would.
func (c *Cluster) ExpireProducer(producerID int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range c.topics {
		for _, pt := range t.parts {
			for _, r := range pt.logs {
				delete(r.pstate, producerID)
			}
		}
	}
	delete(c.epochs, producerID)
}

// ExpireIdleProducers forgets, on every replica of every partition, the
// state of each producer that has not written there (nor, on a leader,
// sent a batch there) for at least idle — what Kafka's
// producer.id.expiration.ms does. It returns the producer ids expired
// anywhere. A producer with a batch retry pending within idle keeps its
// state, as in Kafka, where the expiration (a day by default) far exceeds
// any delivery timeout.
func (c *Cluster) ExpireIdleProducers(idle time.Duration) []int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	seen := map[int64]bool{}
	var out []int64
	for _, t := range c.topics {
		for _, pt := range t.parts {
			for _, r := range pt.logs {
				for _, pid := range r.pstate.expireIdle(idle, now) {
					if !seen[pid] {
						seen[pid] = true
						out = append(out, pid)
					}
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

func deleteID(ids []int32, id int32) []int32 {
	out := ids[:0]
	for _, x := range ids {
		if x != id {
			out = append(out, x)
		}
	}
	return out
}
