package sim

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// pids hands out producer ids from 500 up.
func pids() func() int64 {
	next := int64(500)
	return func() int64 { next++; return next }
}

// initialized is a transactional id after its first InitProducerId:
// producer 100, epoch 0, Empty.
func initialized(t *testing.T) *txnMeta {
	t.Helper()
	m := newTxnMeta("tx", 100, time.Minute, time.Unix(0, 0))
	if d, code := m.initProducerID(time.Minute, nil, pids(), time.Unix(1, 0)); d != initBumped || code != errNone {
		t.Fatalf("first InitProducerId: %d, code %d", d, code)
	}
	if m.pid != 100 || m.epoch != 0 || m.lastEpoch != noEpoch || m.state != TxnEmpty {
		t.Fatalf("after the first InitProducerId: %+v", m)
	}
	return m
}

var p0, p1 = tp{"t", 0}, tp{"t", 1}

func TestTxnInitProducerID(t *testing.T) {
	now := time.Unix(2, 0)
	for _, tc := range []struct {
		name      string
		setup     func(*txnMeta)
		expected  *pidEpoch
		decision  initDecision
		code      int16
		pid       int64
		epoch     int16
		lastEpoch int16
	}{
		{name: "again, no producer named: the epoch goes up", decision: initBumped, pid: 100, epoch: 1, lastEpoch: noEpoch},
		{name: "naming the current epoch (KIP-360): up, the last one kept", expected: &pidEpoch{100, 0}, decision: initBumped, pid: 100, epoch: 1, lastEpoch: 0},
		{name: "a retry naming the last epoch: the current one again",
			setup:    func(m *txnMeta) { m.epoch, m.lastEpoch = 1, 0 },
			expected: &pidEpoch{100, 0}, decision: initBumped, pid: 100, epoch: 1, lastEpoch: 0},
		{name: "naming an older epoch", setup: func(m *txnMeta) { m.epoch = 3 },
			expected: &pidEpoch{100, 1}, decision: initRefused, code: errProducerFenced, pid: 100, epoch: 3, lastEpoch: noEpoch},
		{name: "naming another producer id", expected: &pidEpoch{7, 0}, decision: initRefused, code: errProducerFenced, pid: 100, epoch: 0, lastEpoch: noEpoch},
		{name: "while committing", setup: func(m *txnMeta) { m.state = TxnPrepareCommit },
			decision: initRefused, code: errConcurrentTransactions, pid: 100, epoch: 0, lastEpoch: noEpoch},
		{name: "while aborting", setup: func(m *txnMeta) { m.state = TxnPrepareAbort },
			decision: initRefused, code: errConcurrentTransactions, pid: 100, epoch: 0, lastEpoch: noEpoch},
		{name: "after a commit", setup: func(m *txnMeta) { m.state = TxnCompleteCommit }, decision: initBumped, pid: 100, epoch: 1, lastEpoch: noEpoch},
		{name: "after an abort", setup: func(m *txnMeta) { m.state = TxnCompleteAbort }, decision: initBumped, pid: 100, epoch: 1, lastEpoch: noEpoch},
		{name: "an ongoing transaction is fenced", setup: func(m *txnMeta) { m.state = TxnOngoing },
			decision: initFence, code: errConcurrentTransactions, pid: 100, epoch: 0, lastEpoch: noEpoch},
		{name: "the epoch exhausted: a new producer id at epoch 0", setup: func(m *txnMeta) { m.epoch = math.MaxInt16 - 1 },
			decision: initBumped, pid: 501, epoch: 0, lastEpoch: noEpoch},
		{name: "the epoch exhausted, named: a new producer id, the last epoch kept", setup: func(m *txnMeta) { m.epoch = math.MaxInt16 - 1 },
			expected: &pidEpoch{100, math.MaxInt16 - 1}, decision: initBumped, pid: 501, epoch: 0, lastEpoch: math.MaxInt16 - 1},
		{name: "the previous producer id at its exhausted epoch (a retry of the rotation)",
			setup:    func(m *txnMeta) { m.prevPID, m.pid, m.epoch, m.lastEpoch = 100, 501, 0, math.MaxInt16-1 },
			expected: &pidEpoch{100, math.MaxInt16 - 1}, decision: initBumped, pid: 501, epoch: 0, lastEpoch: math.MaxInt16 - 1},
		{name: "the previous producer id at another epoch",
			setup:    func(m *txnMeta) { m.prevPID, m.pid, m.epoch = 100, 501, 0 },
			expected: &pidEpoch{100, 5}, decision: initRefused, code: errProducerFenced, pid: 501, epoch: 0, lastEpoch: noEpoch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := initialized(t)
			if tc.setup != nil {
				tc.setup(m)
			}
			d, code := m.initProducerID(time.Second, tc.expected, pids(), now)
			if d != tc.decision || code != tc.code {
				t.Fatalf("decision %d code %d, want %d code %d", d, code, tc.decision, tc.code)
			}
			if m.pid != tc.pid || m.epoch != tc.epoch || m.lastEpoch != tc.lastEpoch {
				t.Fatalf("producer %d epoch %d last %d, want %d, %d, %d", m.pid, m.epoch, m.lastEpoch, tc.pid, tc.epoch, tc.lastEpoch)
			}
			if d == initBumped && (m.state != TxnEmpty || m.timeout != time.Second || len(m.parts) != 0) {
				t.Fatalf("after a bump: %v, timeout %v, %d partitions", m.state, m.timeout, len(m.parts))
			}
		})
	}
}

func TestTxnNewIDNamingAProducer(t *testing.T) {
	// A transactional id the coordinator never saw, with a producer id
	// and epoch (a producer recovering from UNKNOWN_PRODUCER_ID): the new
	// id's producer at epoch 0.
	m := newTxnMeta("tx", 300, time.Minute, time.Unix(0, 0))
	if d, code := m.initProducerID(time.Minute, &pidEpoch{42, 7}, pids(), time.Unix(1, 0)); d != initBumped || code != errNone || m.pid != 300 || m.epoch != 0 {
		t.Fatalf("decision %d code %d, producer %d epoch %d", d, code, m.pid, m.epoch)
	}
}

func TestTxnAddPartitions(t *testing.T) {
	start := time.Unix(5, 0)
	m := initialized(t)
	if code := m.addPartitions(7, 0, []tp{p0}, start); code != errInvalidProducerIDMapping {
		t.Fatalf("another producer id: %d", code)
	}
	if code := m.addPartitions(100, 1, []tp{p0}, start); code != errProducerFenced {
		t.Fatalf("another epoch: %d", code)
	}
	var none *txnMeta
	if code := none.check(100, 0); code != errInvalidProducerIDMapping {
		t.Fatalf("an unknown transactional id: %d", code)
	}
	if code := m.addPartitions(100, 0, []tp{p0}, start); code != errNone || m.state != TxnOngoing || !m.started.Equal(start) {
		t.Fatalf("Empty to Ongoing: %d, %v, started %v", code, m.state, m.started)
	}
	if code := m.addPartitions(100, 0, []tp{p0, p1}, start.Add(time.Second)); code != errNone || len(m.parts) != 2 || !m.started.Equal(start) {
		t.Fatalf("Ongoing, one more: %d, %d partitions, started %v", code, len(m.parts), m.started)
	}
	for _, s := range []TxnState{TxnPrepareCommit, TxnPrepareAbort} {
		m.state = s
		if code := m.addPartitions(100, 0, []tp{p0}, start); code != errConcurrentTransactions {
			t.Fatalf("in %v: %d", s, code)
		}
	}
	for _, s := range []TxnState{TxnCompleteCommit, TxnCompleteAbort} {
		m.state, m.parts = s, map[tp]bool{}
		later := start.Add(time.Hour)
		if code := m.addPartitions(100, 0, []tp{p1}, later); code != errNone || m.state != TxnOngoing || !m.started.Equal(later) || len(m.parts) != 1 {
			t.Fatalf("after %v: %d, %v, started %v, %d partitions", s, code, m.state, m.started, len(m.parts))
		}
	}
}

func TestTxnEndTxn(t *testing.T) {
	now := time.Unix(9, 0)
	for _, tc := range []struct {
		state    TxnState
		commit   bool
		prepared bool
		code     int16
		after    TxnState
	}{
		{TxnOngoing, true, true, errNone, TxnPrepareCommit},
		{TxnOngoing, false, true, errNone, TxnPrepareAbort},
		{TxnCompleteCommit, true, false, errNone, TxnCompleteCommit},
		{TxnCompleteCommit, false, false, errInvalidTxnState, TxnCompleteCommit},
		{TxnCompleteAbort, false, false, errNone, TxnCompleteAbort},
		{TxnCompleteAbort, true, false, errInvalidTxnState, TxnCompleteAbort},
		{TxnPrepareCommit, true, false, errConcurrentTransactions, TxnPrepareCommit},
		{TxnPrepareCommit, false, false, errInvalidTxnState, TxnPrepareCommit},
		{TxnPrepareAbort, false, false, errConcurrentTransactions, TxnPrepareAbort},
		{TxnPrepareAbort, true, false, errInvalidTxnState, TxnPrepareAbort},
		{TxnEmpty, true, false, errInvalidTxnState, TxnEmpty},
		{TxnEmpty, false, false, errInvalidTxnState, TxnEmpty},
	} {
		m := initialized(t)
		m.state = tc.state
		prepared, code := m.endTxn(100, 0, tc.commit, now)
		if prepared != tc.prepared || code != tc.code || m.state != tc.after {
			t.Errorf("%v, commit %v: prepared %v code %d state %v; want %v, %d, %v", tc.state, tc.commit, prepared, code, m.state, tc.prepared, tc.code, tc.after)
		}
		if prepared && (m.markers == nil || m.done == nil || m.epoch != 0) {
			t.Errorf("%v: prepared without marker bookkeeping, or the epoch moved (%d)", tc.state, m.epoch)
		}
	}
	m := initialized(t)
	m.state = TxnOngoing
	if _, code := m.endTxn(100, 1, true, now); code != errProducerFenced {
		t.Errorf("another epoch: %d", code)
	}
	if _, code := m.endTxn(101, 0, true, now); code != errInvalidProducerIDMapping {
		t.Errorf("another producer id: %d", code)
	}
}

func TestTxnFenceAndComplete(t *testing.T) {
	m := initialized(t)
	m.lastEpoch = 0
	m.addPartitions(100, 0, []tp{p0, p1}, time.Unix(3, 0))
	m.fence(false, time.Unix(4, 0))
	if m.state != TxnPrepareAbort || m.epoch != 1 || m.lastEpoch != noEpoch || len(m.parts) != 2 {
		t.Fatalf("fenced: %v epoch %d last %d, %d partitions", m.state, m.epoch, m.lastEpoch, len(m.parts))
	}
	// The old epoch is refused from then on; the fence's own is not given
	// to anyone.
	if code := m.verify(100, 0, p0); code != errProducerFenced {
		t.Fatalf("old epoch after the fence: %d", code)
	}
	if code := m.verify(100, 1, p0); code != errConcurrentTransactions {
		t.Fatalf("while aborting: %d", code)
	}
	m.offsets = map[string]map[tp]int64{"g": {p0: 5}}
	m.complete(time.Unix(5, 0))
	if m.state != TxnCompleteAbort || len(m.parts) != 0 || m.markers != nil || m.offsets != nil || m.epoch != 1 {
		t.Fatalf("completed: %v, %d partitions, epoch %d", m.state, len(m.parts), m.epoch)
	}
	// A retry of InitProducerId after the fence, naming the fenced
	// epoch, is fenced: the fence forgot the last epoch, as Kafka's does.
	if d, code := m.initProducerID(time.Minute, &pidEpoch{100, 0}, pids(), time.Unix(6, 0)); d != initRefused || code != errProducerFenced {
		t.Fatalf("InitProducerId naming the fenced epoch: %d, %d", d, code)
	}
	if d, code := m.initProducerID(time.Minute, nil, pids(), time.Unix(6, 0)); d != initBumped || code != errNone || m.epoch != 2 {
		t.Fatalf("InitProducerId after the fence: %d, %d, epoch %d", d, code, m.epoch)
	}
	m.state = TxnPrepareCommit
	m.complete(time.Unix(7, 0))
	if m.state != TxnCompleteCommit {
		t.Fatalf("a commit completes as %v", m.state)
	}
}

func TestTxnTimedOut(t *testing.T) {
	m := initialized(t)
	start := time.Unix(100, 0)
	if m.timedOut(start.Add(time.Hour)) {
		t.Fatal("an Empty transaction timed out")
	}
	m.addPartitions(100, 0, []tp{p0}, start)
	if m.timedOut(start.Add(time.Minute)) || !m.timedOut(start.Add(time.Minute+time.Millisecond)) {
		t.Fatal("a one-minute transaction times out strictly after a minute")
	}
	m.state = TxnPrepareCommit
	if m.timedOut(start.Add(time.Hour)) {
		t.Fatal("a committing transaction timed out")
	}
}

func TestTxnVerify(t *testing.T) {
	m := initialized(t)
	m.addPartitions(100, 0, []tp{p0}, time.Unix(3, 0))
	for _, tc := range []struct {
		pid   int64
		epoch int16
		p     tp
		want  int16
	}{
		{100, 0, p0, errNone},
		{100, 0, p1, errTransactionAbortable},
		{100, 1, p0, errProducerFenced},
		{99, 0, p0, errInvalidProducerIDMapping},
	} {
		if code := m.verify(tc.pid, tc.epoch, tc.p); code != tc.want {
			t.Errorf("producer %d epoch %d %v: %d, want %d", tc.pid, tc.epoch, tc.p, code, tc.want)
		}
	}
}

func TestTxnStateNames(t *testing.T) {
	want := []string{"Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort", "Dead", "PrepareEpochFence"}
	for i, w := range want {
		if got := TxnState(i).String(); got != w {
			t.Errorf("state %d: %q, want %q", i, got, w)
		}
	}
	if TxnState(42).String() != "Unknown" {
		t.Error("an unknown state has a name")
	}
}

func TestJavaHashPlacement(t *testing.T) {
	// Values of Java's String.hashCode.
	for key, want := range map[string]int32{"": 0, "a": 97, "hello": 99162322, "transactional-id-1": 1051133891, "é€": 233*31 + 8364} {
		if got := javaHash(key); got != want {
			t.Errorf("javaHash(%q) = %d, want %d", key, got, want)
		}
	}
	ct := newCoordTopic(txnStateTopic, 50, 3)
	if p := ct.partitionFor("transactional-id-1"); p != 41 {
		t.Errorf("partition %d", p)
	}
	if ct.leaders[47] != 2 || ct.rf != 3 {
		t.Errorf("partition 47 led by %d, replication %d", ct.leaders[47], ct.rf)
	}
}

// TestTxnAPIVersions: a cluster without transactions v2 advertises the
// transactional APIs at transactions v1's versions, and the decoder
// refuses the versions above the highest served (TxnOffsetCommit v6 names
// topics by id; AddPartitionsToTxn v4+ is between brokers).
func TestTxnAPIVersions(t *testing.T) {
	want := map[int16][2]int16{22: {0, 5}, 24: {0, 3}, 25: {0, 3}, 26: {0, 4}, 28: {0, 4}}
	for _, k := range apiVersionsFor(&config{}) {
		if w, ok := want[k.ApiKey]; ok {
			if k.MinVersion != w[0] || k.MaxVersion != w[1] {
				t.Errorf("%s: v%d-v%d advertised, want v%d-v%d", kmsg.NameForKey(k.ApiKey), k.MinVersion, k.MaxVersion, w[0], w[1])
			}
			delete(want, k.ApiKey)
		}
	}
	if len(want) != 0 {
		t.Errorf("not advertised: %v", want)
	}
	f := kmsg.NewRequestFormatter()
	for _, req := range []kmsg.Request{kmsg.NewPtrAddPartitionsToTxnRequest(), kmsg.NewPtrAddOffsetsToTxnRequest(), kmsg.NewPtrEndTxnRequest(), kmsg.NewPtrTxnOffsetCommitRequest()} {
		_, hi, _ := versionRange(req.Key())
		req.SetVersion(hi + 1)
		if _, _, err := decodeRequest(f.AppendRequest(nil, req, 1)[4:]); !errors.Is(err, ErrUnsupportedRequest) {
			t.Errorf("%s v%d: %v", kmsg.NameForKey(req.Key()), hi+1, err)
		}
	}
}
