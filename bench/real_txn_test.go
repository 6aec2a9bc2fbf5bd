//go:build linux

package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/kafkatest"
)

// TestRealTxnPeers is the transactions table of docs/peers.md: rollsafe,
// kgo, the Java producer and librdkafka (confluent-kafka from PyPI and
// Debian's), each a transactional producer on its own topic of one real
// 3-broker cluster, all at once, run transactions of txnRecords records
// (spread over the topic's partitions, every fourth aborted by the
// program) one after another while a scenario faults the cluster; then
// every topic is read back as a read_committed consumer reads it and each
// transaction's records are held to what the peer's API said of it.
//
// By default (and in CI) it runs the coordinator kill on Kafka 4.4.0;
// ROLLSAFE_PEER_TXN_SCENARIOS names scenarios ("all": every one),
// ROLLSAFE_PEER_TXN_KAFKA_VERSIONS the broker versions (comma separated),
// ROLLSAFE_PEERS the peers; ROLLSAFE_PEERS_TXN_TABLE=file writes each
// version's table (the version before the extension but for 4.4.0).
//
//	cd bench && ROLLSAFE_PEER_TXN_SCENARIOS=all go test -run TestRealTxnPeers -v -timeout 60m
//	ROLLSAFE_PEER_TXN_SCENARIOS=all ROLLSAFE_PEER_TXN_KAFKA_VERSIONS=3.9.2,2.8.1 go test -run TestRealTxnPeers -v -timeout 90m
func TestRealTxnPeers(t *testing.T) {
	var names []string
	for _, sc := range txnScenarios {
		names = append(names, sc.name)
	}
	wantSc := selected("ROLLSAFE_PEER_TXN_SCENARIOS", names, []string{"coordkill"})
	for _, n := range wantSc {
		if !slices.Contains(names, n) {
			t.Fatalf("ROLLSAFE_PEER_TXN_SCENARIOS: no scenario %q (have %v)", n, names)
		}
	}
	for _, name := range selected("ROLLSAFE_PEER_TXN_KAFKA_VERSIONS", []string{string(kafkatest.DefaultVersion)}, nil) {
		v, err := kafkatest.ParseVersion(name)
		if err != nil {
			t.Fatalf("ROLLSAFE_PEER_TXN_KAFKA_VERSIONS: %v", err)
		}
		t.Run(string(v), func(t *testing.T) { runTxnPeers(t, v, wantSc) })
	}
}

const (
	txnRecords     = 2 * realParts         // records per transaction: two per partition
	txnAbortEvery  = 4                     // the program aborts transactions 3, 7, 11, …
	txnPace        = 50 * time.Millisecond // at least this long between one transaction's start and the next's
	txnReplyWait   = 3 * time.Minute       // for one transaction's outcome (Java's commit may block 60 s, then its abort)
	txnStateParts  = 3                     // __transaction_state's partitions in kafkatest
	txnCleanup     = time.Second           // the brokers' check for transactions past their timeout
	txnShortTimout = 10 * time.Second      // the timeout scenario's transaction timeout
	txnHold        = 15 * time.Second      // how long the timeout scenario holds one transaction open
	txnWarm        = 5                     // commits every peer makes before the fault
	txnAfter       = 20                    // commits every peer makes after each step of a fault
	txnErrorsStop  = 3                     // transactions in a row ending in an error that stop a peer
)

type txnScenario struct {
	name  string
	opts  txnPeerOpts
	fault func(g *txnGroup)
}

var txnScenarios = []txnScenario{
	{"coordkill", txnPeerOpts{}, txnFaultCoordKill},
	{"leaderroll", txnPeerOpts{}, txnFaultLeaderRoll},
	{"fence", txnPeerOpts{}, txnFaultFence},
	{"timeout", txnPeerOpts{timeout: txnShortTimout}, txnFaultTimeout},
}

// txnDone is one transaction as the peer's API ended it.
type txnDone struct {
	req   txnReq
	reply txnReply
	at    time.Time
}

// txnRun is one peer's transactions in one scenario.
type txnRun struct {
	peer, topic, id string
	sess            txnSession
	tl              *tally
	mu              sync.Mutex
	done            []txnDone
	commits         int
	stopped         bool   // the peer went fatal or silent: no more transactions
	stuck           string // the peer was stopped after txnErrorsStop errors in a row: the last one
	holdNext        atomic.Bool
	stop            chan struct{}
	exited          chan struct{}
	began, ended    time.Time
	notes           []string
	// fencer: the fence scenario's new instance ended (its commit's
	// error, nil if it committed); fenced: the fence scenario played.
	fencer error
	fenced bool
}

// txnGroup is every peer of a transactions scenario and the fault they share.
type txnGroup struct {
	t      *testing.T
	c      *kafkatest.Cluster
	ctx    context.Context
	runs   []*txnRun
	topics []string
	ids    []string
	began  time.Time
	fault  time.Time // the fault began: stalls count from here
}

// runTxnPeers runs the transactions scenarios wantSc, every selected peer
// at once, on one cluster of Kafka version v.
func runTxnPeers(t *testing.T, v kafkatest.Version, wantSc []string) {
	var names []string
	for _, p := range txnPeers() {
		names = append(names, p.name)
	}
	wantPeers := selected("ROLLSAFE_PEERS", names, nil)
	var peers []txnPeer
	for _, p := range txnPeers() {
		if !slices.Contains(wantPeers, p.name) {
			continue
		}
		if err := peerCheck(p.name); err != nil {
			t.Run(p.name, func(t *testing.T) { requirePeer(t, p.name, err) })
			continue
		}
		peers = append(peers, p)
	}
	if len(peers) == 0 {
		t.Skip("no transactional peer can run here; " + peersHowTo)
	}
	c := kafkatest.LaunchT(t, kafkatest.Config{Version: v, StartTimeout: 4 * time.Minute, Props: map[string]string{
		"transaction.abort.timed.out.transaction.cleanup.interval.ms": strconv.FormatInt(txnCleanup.Milliseconds(), 10),
	}})
	var results []txnResult
	for _, sc := range txnScenarios {
		if !slices.Contains(wantSc, sc.name) {
			continue
		}
		t.Run(sc.name, func(t *testing.T) {
			for _, res := range runTxnScenario(t, c, sc, peers) {
				results = append(results, res)
				t.Run(res.peer, func(t *testing.T) {
					t.Log(res.line())
					res.judge(t)
				})
			}
		})
	}
	table := txnTable(results)
	t.Logf("Kafka %s\n%s", v, table)
	if path := os.Getenv("ROLLSAFE_PEERS_TXN_TABLE"); path != "" {
		if v != kafkatest.DefaultVersion {
			ext := filepath.Ext(path)
			path = strings.TrimSuffix(path, ext) + "-" + string(v) + ext
		}
		if err := os.WriteFile(path, []byte(table), 0o644); err != nil {
			t.Error(err)
		}
	}
}

// javaStringHash is Java's String.hashCode of an ASCII string, which the
// coordinator hashes a transactional id with.
func javaStringHash(s string) int32 {
	var h int32
	for i := range len(s) {
		h = 31*h + int32(s[i])
	}
	return h
}

// txnStatePartition is the __transaction_state partition (of parts)
// holding transactional id id: Utils.abs(id.hashCode()) % parts.
func txnStatePartition(id string, parts int32) int32 {
	h := javaStringHash(id)
	if h == -1<<31 {
		return 0
	}
	if h < 0 {
		h = -h
	}
	return h % parts
}

// txnID is the transactional id of peer in scenario sc: the first of
// bench-<sc>-<peer>-0, -1, … on __transaction_state partition 0, so every
// peer has the same coordinator.
func txnID(sc, peer string) string {
	for k := 0; ; k++ {
		id := fmt.Sprintf("bench-%s-%s-%d", sc, peer, k)
		if txnStatePartition(id, txnStateParts) == 0 {
			return id
		}
	}
}

func runTxnScenario(t *testing.T, c *kafkatest.Cluster, sc txnScenario, peers []txnPeer) []txnResult {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	g := &txnGroup{t: t, c: c, ctx: ctx}
	for _, p := range peers {
		topic := "txn-" + sc.name + "-" + p.name
		if err := c.CreateTopic(ctx, kafkatest.Topic{Name: topic, Assignment: replicaOrder(c.Brokers()),
			Configs: map[string]string{"min.insync.replicas": "2"}}); err != nil {
			t.Fatal(err)
		}
		g.topics = append(g.topics, topic)
		g.ids = append(g.ids, txnID(sc.name, p.name))
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(c.LogTails(40))
		}
		if err := restoreCluster(c, g.topics); err != nil {
			t.Errorf("restore the cluster: %v", err)
		}
		dctx, dcancel := context.WithTimeout(context.Background(), time.Minute)
		defer dcancel()
		if err := c.DeleteTopics(dctx, g.topics...); err != nil {
			t.Logf("delete the scenario's topics: %v", err)
		}
	})
	g.began = time.Now()
	// The peers start at once: a JVM or an interpreter takes seconds.
	g.runs = make([]*txnRun, len(peers))
	errs := make([]error, len(peers))
	var wg sync.WaitGroup
	for i, p := range peers {
		r := &txnRun{peer: p.name, topic: g.topics[i], id: g.ids[i], tl: newTally()}
		g.runs[i] = r
		wg.Go(func() {
			sctx, scancel := context.WithTimeout(ctx, realWarmWait)
			defer scancel()
			r.sess, errs[i] = p.start(sctx, c.Addrs(), r.topic, r.id, sc.opts, r.tl)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			for _, r := range g.runs {
				if r.sess != nil {
					_ = r.sess.finish(ctx)
				}
			}
			t.Fatalf("start %s: %v", peers[i].name, err)
		}
	}
	for _, r := range g.runs {
		r.run(ctx)
	}
	g.awaitCommits(txnWarm, "warm-up", realWarmWait)
	g.fault = time.Now()
	g.note("transactional ids %v (coordinator of the first: broker %d)", g.ids, g.coordinator(g.ids[0]))
	sc.fault(g)
	for _, r := range g.runs {
		r.halt()
	}
	for _, r := range g.runs {
		wg.Go(func() {
			fctx, fcancel := context.WithTimeout(ctx, realFinishWait)
			defer fcancel()
			if err := r.sess.finish(fctx); err != nil {
				r.note(g.began, "finish: %v", err)
			}
		})
	}
	wg.Wait()
	var results []txnResult
	for _, r := range g.runs {
		rctx, rcancel := context.WithTimeout(context.Background(), 3*time.Minute)
		log, err := readback.ReadTopic(rctx, c.Addrs(), r.topic)
		rcancel()
		if err != nil {
			t.Fatalf("read back %s: %v", r.topic, err)
		}
		results = append(results, r.result(sc.name, g.fault, log))
	}
	return results
}

func (r *txnRun) note(since time.Time, format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.notes = append(r.notes, fmt.Sprintf("%6.1fs ", time.Since(since).Seconds())+fmt.Sprintf(format, args...))
}

func (g *txnGroup) note(format string, args ...any) {
	n := fmt.Sprintf(format, args...)
	g.t.Logf("%6.1fs %s", time.Since(g.began).Seconds(), n)
	for _, r := range g.runs {
		r.note(g.began, "%s", n)
	}
}

// run drives the peer's transactions, one after another (at most one per
// txnPace), until halt or the peer can go no further.
func (r *txnRun) run(ctx context.Context) {
	r.stop, r.exited = make(chan struct{}), make(chan struct{})
	r.began = time.Now()
	go func() {
		defer close(r.exited)
		errorsInARow := 0
		for n := 0; ; n++ {
			start := time.Now()
			select {
			case <-r.stop:
				return
			default:
			}
			req := txnReq{n: n, abort: n%txnAbortEvery == txnAbortEvery-1}
			if r.holdNext.CompareAndSwap(true, false) {
				req.hold, req.abort = txnHold, false
			}
			for i := range txnRecords {
				req.recs = append(req.recs, peerRec{id: strconv.Itoa(n*txnRecords + i), partition: int32(i % realParts)})
			}
			tctx, cancel := context.WithTimeout(ctx, txnReplyWait+req.hold)
			reply := r.sess.do(tctx, req)
			cancel()
			r.mu.Lock()
			r.done = append(r.done, txnDone{req: req, reply: reply, at: time.Now()})
			if reply.outcome == txnCommitted {
				r.commits++
			}
			if reply.outcome == txnError {
				errorsInARow++
			} else {
				errorsInARow = 0
			}
			// A client whose every call fails (its documented handling
			// loops) is stopped as a fatal one is.
			last := reply.outcome == txnFatal || reply.outcome == txnNoAnswer || errorsInARow == txnErrorsStop
			if last {
				r.stopped = true
			}
			if errorsInARow == txnErrorsStop {
				r.stuck = reply.detail
			}
			r.mu.Unlock()
			if errorsInARow == txnErrorsStop {
				r.note(r.began, "stopped: %d transactions in a row ended in an error", txnErrorsStop)
			}
			if last {
				return
			}
			if d := time.Since(start); d < txnPace {
				select {
				case <-r.stop:
					return
				case <-time.After(txnPace - d):
				}
			}
		}
	}()
}

func (r *txnRun) halt() {
	close(r.stop)
	<-r.exited
	r.ended = time.Now()
}

// counts returns the peer's commits and transactions so far, and whether
// it stopped.
func (r *txnRun) counts() (commits, txns int, stopped bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.commits, len(r.done), r.stopped
}

// awaitCommits waits until every peer still running has committed n more
// transactions than now, noting (not failing: a peer that stops
// committing is a result) each that does not within wait.
func (g *txnGroup) awaitCommits(n int, what string, wait time.Duration) {
	want := make([]int, len(g.runs))
	for i, r := range g.runs {
		c, _, _ := r.counts()
		want[i] = c + n
	}
	start := time.Now()
	for {
		waiting := 0
		for i, r := range g.runs {
			c, _, stopped := r.counts()
			if c < want[i] && !stopped {
				waiting++
			}
		}
		if waiting == 0 {
			return
		}
		if time.Since(start) > wait {
			for i, r := range g.runs {
				if c, _, stopped := r.counts(); c < want[i] && !stopped {
					r.note(g.began, "%s: %d of %d commits within %v", what, c-(want[i]-n), n, wait)
					g.t.Logf("%s: %s: %d of %d commits within %v", r.peer, what, c-(want[i]-n), n, wait)
				}
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// awaitTxns waits until every peer still running has ended n more
// transactions, however, or stopped, up to wait.
func (g *txnGroup) awaitTxns(n int, wait time.Duration) {
	want := make([]int, len(g.runs))
	for i, r := range g.runs {
		_, d, _ := r.counts()
		want[i] = d + n
	}
	start := time.Now()
	for time.Since(start) < wait {
		waiting := 0
		for i, r := range g.runs {
			if _, d, stopped := r.counts(); d < want[i] && !stopped {
				waiting++
			}
		}
		if waiting == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}
