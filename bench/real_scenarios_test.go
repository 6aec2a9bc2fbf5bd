//go:build linux

package bench

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/kafkatest"
)

// The real-cluster scenarios run every peer against one 3-broker Apache
// Kafka cluster (kafkatest), all peers at once, each on its own topic
// whose partitions have the same replicas in the same order, so one fault
// (a broker stopped, killed, paused or blackholed) hits every peer at the
// same moment in the same way. By default (and in CI) all eight scenarios
// run, every peer (clean, seed and blackhole took 70 s, 163 s and 57 s on
// the 2 cores at load average ~22; kill, roll and zombie 286 s together,
// with -race, on a quiet machine); ROLLSAFE_PEER_SCENARIOS names some
// (comma separated); ROLLSAFE_PEERS names the peers to run.
// ROLLSAFE_PEERS_TABLE=file writes the results as a markdown table.
//
//	cd bench && ROLLSAFE_PEER_SCENARIOS=all go test -run TestRealPeers -v -timeout 60m
const (
	realParts      = 6
	realPerTick    = 10               // records per 5 ms tick: 2,000 records/s over 6 partitions
	realWait       = 60 * time.Second // for acknowledgements that show production flows
	realWarmWait   = 3 * time.Minute  // for every peer's first acknowledgements
	zombieTimeout  = 3 * time.Second  // every peer's request timeout in the zombie and blackhole scenarios
	realFinishWait = 60 * time.Second // for a peer's last outcomes after the load stops
	deadPeerWait   = 5 * time.Second  // the waits once a peer has gone fatal
)

// realPeers are the clients compared, rollsafe first.
func realPeers() []realPeer {
	return []realPeer{
		{"rollsafe", startRollsafe},
		{"kgo", startKgo},
		{"sarama", startSarama},
		{"java", startJava},
		{"confluent-kafka-" + pinnedConfluentKafka, startPython(false)},
		{"debian-confluent-kafka", startPython(true)},
		{"kcat", startKcat(realParts)},
	}
}

// peerDescriptions name what each peer is, for the table.
var peerDescriptions = map[string]string{
	"rollsafe": "rollsafe (this repository)",
	"kgo":      "franz-go kgo v1.22.3",
	"sarama":   "IBM/sarama v1.61.1",
	"java":     "Apache Kafka Java producer, kafka-clients 4.4.0",
	"confluent-kafka-" + pinnedConfluentKafka: "librdkafka 2.16.0 (confluent-kafka " + pinnedConfluentKafka + " from PyPI)",
	"debian-confluent-kafka":                  "librdkafka 2.0.2 (Debian's python3-confluent-kafka 1.7.0)",
	"kcat":                                    "kcat 1.7.1, librdkafka 2.0.2 (Debian)",
}

// peerCheck says whether a peer can run on this machine.
func peerCheck(name string) error {
	switch {
	case name == "java":
		_, _, err := javaCmd()
		return err
	case name == "kcat":
		_, err := kcatCmd()
		return err
	case name == "debian-confluent-kafka":
		_, _, err := pythonCmd(true)
		return err
	case strings.HasPrefix(name, "confluent-kafka-"):
		_, _, err := pythonCmd(false)
		return err
	}
	return nil
}

type scenario struct {
	name string
	opts peerOpts
	// configs are the topics' configs beyond min.insync.replicas=2.
	configs map[string]string
	// fault runs while the load flows; it ends with production having
	// been given the chance to resume.
	fault func(g *realGroup)
}

var realScenarios = []scenario{
	{"clean", peerOpts{}, nil, func(g *realGroup) {
		for p := range int32(realParts) {
			g.awaitAcks(p, 200, "clean load")
		}
	}},
	{"seed", peerOpts{}, nil, faultSeed},
	{"kill", peerOpts{}, nil, faultKill},
	{"roll", peerOpts{}, nil, faultRoll},
	{"zombie", peerOpts{requestTimeout: zombieTimeout}, nil, faultZombie},
	{"blackhole", peerOpts{requestTimeout: zombieTimeout}, nil, faultBlackhole},
	{"mininsync", peerOpts{requestTimeout: zombieTimeout}, map[string]string{"min.insync.replicas": "3"}, faultMinInsync},
	{"compound", peerOpts{}, nil, faultCompound},
}

// selected returns the items of all named by env (comma separated; "all"
// or unset picks all, or def when unset and def is not nil).
func selected(env string, all, def []string) []string {
	v := os.Getenv(env)
	if v == "all" || (v == "" && def == nil) {
		return all
	}
	if v == "" {
		return def
	}
	return strings.Split(v, ",")
}

func TestRealPeers(t *testing.T) {
	runRealPeers(t, kafkatest.DefaultVersion, selected("ROLLSAFE_PEER_SCENARIOS", scenarioNames(), nil))
}

// TestRealPeersVersions runs scenarios on older broker versions: by
// default (and in CI) the compound failure, every peer, on 3.9.2 (KRaft)
// and 2.8.1 (ZooKeeper, the bug report's broker); ROLLSAFE_PEER_SCENARIOS
// names others ("all" for the per-version tables of docs/peers.md) and
// ROLLSAFE_PEER_KAFKA_VERSIONS the versions (comma separated; 2.2.2, which
// the harness also has, only when named there). With
// ROLLSAFE_PEERS_TABLE=file, each version's table goes to file with the
// version before its extension.
//
//	cd bench && ROLLSAFE_PEER_SCENARIOS=all go test -run TestRealPeersVersions/2.8.1 -v -timeout 60m
func TestRealPeersVersions(t *testing.T) {
	others := []string{string(kafkatest.V3_9), string(kafkatest.V2_8)}
	wantSc := selected("ROLLSAFE_PEER_SCENARIOS", scenarioNames(), []string{"compound"})
	for _, name := range selected("ROLLSAFE_PEER_KAFKA_VERSIONS", others, nil) {
		v, err := kafkatest.ParseVersion(name)
		if err != nil {
			t.Fatalf("ROLLSAFE_PEER_KAFKA_VERSIONS: %v", err)
		}
		t.Run(string(v), func(t *testing.T) { runRealPeers(t, v, wantSc) })
	}
}

func scenarioNames() []string {
	var out []string
	for _, s := range realScenarios {
		out = append(out, s.name)
	}
	return out
}

// runRealPeers runs the scenarios named in wantSc, every selected peer at
// once, on one cluster of Kafka version v.
func runRealPeers(t *testing.T, v kafkatest.Version, wantSc []string) {
	scNames := scenarioNames()
	var peerNames []string
	for _, p := range realPeers() {
		peerNames = append(peerNames, p.name)
	}
	// Every peer, rollsafe included, also in CI.
	wantPeers := selected("ROLLSAFE_PEERS", peerNames, nil)
	for _, n := range wantSc {
		if !slices.Contains(scNames, n) {
			t.Fatalf("ROLLSAFE_PEER_SCENARIOS: no scenario %q (have %v)", n, scNames)
		}
	}
	for _, n := range wantPeers {
		if !slices.Contains(peerNames, n) {
			t.Fatalf("ROLLSAFE_PEERS: no peer %q (have %v)", n, peerNames)
		}
	}
	// A peer that cannot run fails (CI) or skips before a cluster starts.
	var peers []realPeer
	for _, p := range realPeers() {
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
		t.Skip("no peer can run here; " + peersHowTo)
	}
	// A broker restarted while seven clients load the cluster on two
	// shared cores can take minutes to serve (a killed one recovers its
	// logs first): 90 s failed the kill scenario once at load average 40.
	c := kafkatest.LaunchT(t, kafkatest.Config{Version: v, StartTimeout: 4 * time.Minute})
	var results []peerResult
	for _, sc := range realScenarios {
		if !slices.Contains(wantSc, sc.name) {
			continue
		}
		t.Run(sc.name, func(t *testing.T) {
			scResults := runScenario(t, c, sc, peers)
			judgeRecovery(t, scResults)
			for _, res := range scResults {
				results = append(results, res)
				t.Run(res.peer, func(t *testing.T) {
					t.Log(res.line())
					res.judge(t)
				})
			}
		})
	}
	table := resultsTable(results)
	t.Logf("Kafka %s\n%s", v, table)
	if path := os.Getenv("ROLLSAFE_PEERS_TABLE"); path != "" {
		if v != kafkatest.DefaultVersion {
			ext := filepath.Ext(path)
			path = strings.TrimSuffix(path, ext) + "-" + string(v) + ext
		}
		if err := os.WriteFile(path, []byte(table), 0o644); err != nil {
			t.Error(err)
		}
	}
}

// realRun is one peer under load in one scenario.
type realRun struct {
	t     *testing.T
	peer  string
	topic string
	sess  peerSession
	tl    *tally
	notes []string

	produced []readback.Produced
	next     int
	stop     chan struct{}
	stopped  chan struct{}
	began    time.Time // the load started
	from     time.Time // every partition acknowledged records: stalls count from here
	ended    time.Time
	healed   time.Time // the cluster healed after the fault (zero: not measured)
	missed   bool      // a wait timed out: later waits give it deadPeerWait
}

// realGroup is every peer of a scenario under load at once, and the
// fault they share.
type realGroup struct {
	t      *testing.T
	c      *kafkatest.Cluster
	ctx    context.Context
	runs   []*realRun
	topics []string
	began  time.Time
}

// replicaOrder gives every topic of a scenario the same replicas, in the
// same order, per partition: partition p prefers broker p mod 3.
func replicaOrder(brokers int) [][]int32 {
	out := make([][]int32, realParts)
	for p := range out {
		for i := range brokers {
			out[p] = append(out[p], int32((p+i)%brokers))
		}
	}
	return out
}

func runScenario(t *testing.T, c *kafkatest.Cluster, sc scenario, peers []realPeer) []peerResult {
	// Bounds the scenario's cluster operations; under a loaded machine a
	// scenario whose peers stall takes minutes (each wait is realWait).
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	g := &realGroup{t: t, c: c, ctx: ctx}
	for _, p := range peers {
		topic := sc.name + "-" + p.name
		configs := map[string]string{"min.insync.replicas": "2"}
		maps.Copy(configs, sc.configs)
		if err := c.CreateTopic(ctx, kafkatest.Topic{Name: topic, Assignment: replicaOrder(c.Brokers()),
			Configs: configs}); err != nil {
			t.Fatal(err)
		}
		g.topics = append(g.topics, topic)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(c.LogTails(40))
		}
		if err := restoreCluster(c, g.topics); err != nil {
			t.Errorf("restore the cluster: %v", err)
		}
		// The next scenario's restarted brokers then have only their own
		// topics' logs to load (a killed broker recovers every log).
		dctx, dcancel := context.WithTimeout(context.Background(), time.Minute)
		defer dcancel()
		if err := c.DeleteTopics(dctx, g.topics...); err != nil {
			t.Logf("delete the scenario's topics: %v", err)
		}
	})
	for i, p := range peers {
		r := &realRun{t: t, peer: p.name, topic: g.topics[i], tl: newTally()}
		sess, err := p.start(ctx, c.Addrs(), r.topic, sc.opts, r.tl)
		if err != nil {
			for _, r := range g.runs {
				_ = r.sess.finish(ctx)
			}
			t.Fatalf("start %s: %v", p.name, err)
		}
		r.sess = sess
		g.runs = append(g.runs, r)
	}
	g.began = time.Now()
	for _, r := range g.runs {
		r.run()
	}
	g.awaitWarm(50)
	for _, r := range g.runs {
		r.from = time.Now()
	}
	sc.fault(g)
	for _, r := range g.runs {
		r.halt()
	}
	// Every peer flushes and closes at once, each bounded.
	var wg sync.WaitGroup
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
	var results []peerResult
	for _, r := range g.runs {
		rctx, rcancel := context.WithTimeout(context.Background(), 3*time.Minute)
		log, err := readback.ReadTopic(rctx, c.Addrs(), r.topic)
		rcancel()
		if err != nil {
			t.Fatalf("read back %s: %v", r.topic, err)
		}
		results = append(results, r.result(sc.name, r.peer, log))
	}
	return results
}

func restoreCluster(c *kafkatest.Cluster, topics []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	return c.Restore(ctx, topics...)
}

func (r *realRun) note(since time.Time, format string, args ...any) {
	r.notes = append(r.notes, fmt.Sprintf("%6.1fs ", time.Since(since).Seconds())+fmt.Sprintf(format, args...))
}

// note records a step of the scenario for every peer.
func (g *realGroup) note(format string, args ...any) {
	n := fmt.Sprintf(format, args...)
	g.t.Logf("%6.1fs %s", time.Since(g.began).Seconds(), n)
	for _, r := range g.runs {
		r.note(g.began, "%s", n)
	}
}

// run produces records "0", "1", ... round robin over the partitions,
// realPerTick every 5 ms, until halt.
func (r *realRun) run() {
	r.stop, r.stopped = make(chan struct{}), make(chan struct{})
	r.began = time.Now()
	go func() {
		defer close(r.stopped)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-r.stop:
				return
			case <-tick.C:
			}
			recs := make([]peerRec, realPerTick)
			for j := range recs {
				i := r.next
				r.next++
				recs[j] = peerRec{id: strconv.Itoa(i), partition: int32(i % realParts)}
				r.produced = append(r.produced, readback.Produced{ID: recs[j].id, Partition: recs[j].partition, Offset: -1})
			}
			r.sess.send(recs)
		}
	}()
}

func (r *realRun) halt() {
	close(r.stop)
	<-r.stopped
	r.ended = time.Now()
}

// awaitAcks waits until partition p of every peer has n more
// acknowledgements than now, noting (not failing: a peer that stops
// producing is a result) each peer whose acknowledgements do not come
// within realWait (deadPeerWait once it went fatal or missed a wait: a
// stalled peer would otherwise stretch a scenario by realWait per wait,
// 18 minutes in the roll; its stall is measured from its
// acknowledgements' times all the same).
func (g *realGroup) awaitAcks(p int32, n int, what string) {
	want := make([]int, len(g.runs))
	for i, r := range g.runs {
		want[i] = r.tl.acked(p) + n
	}
	start := time.Now()
	waiting := len(g.runs)
	done := make([]bool, len(g.runs))
	for waiting > 0 {
		for i, r := range g.runs {
			if done[i] {
				continue
			}
			within := realWait
			if r.missed || r.tl.isFatal() {
				within = deadPeerWait
			}
			switch {
			case r.tl.acked(p) >= want[i]:
			case time.Since(start) > within:
				r.note(g.began, "%s: partition %d got %d of %d acknowledgements within %v", what, p, r.tl.acked(p)-(want[i]-n), n, within)
				g.t.Logf("%s: %s: partition %d got %d of %d acknowledgements within %v", r.peer, what, p, r.tl.acked(p)-(want[i]-n), n, within)
				r.missed = true
			default:
				continue
			}
			done[i] = true
			waiting--
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// awaitWarm waits until every peer has n acknowledgements on every
// partition, up to realWarmWait: a client in a child process (a JVM, a
// Python interpreter) can take a minute to start on a loaded machine, and
// a fault that hit it before it produced would measure its start, not
// its recovery. A peer still cold then is noted, not marked as missed.
func (g *realGroup) awaitWarm(n int) {
	start := time.Now()
	for {
		cold := 0
		for _, r := range g.runs {
			for p := range int32(realParts) {
				if r.tl.acked(p) < n {
					cold++
					break
				}
			}
		}
		if cold == 0 {
			return
		}
		if time.Since(start) > realWarmWait {
			for _, r := range g.runs {
				for p := range int32(realParts) {
					if r.tl.acked(p) < n {
						r.note(g.began, "warm-up: partition %d got %d of %d acknowledgements within %v", p, r.tl.acked(p), n, realWarmWait)
						g.t.Logf("%s: warm-up: partition %d got %d of %d acknowledgements within %v", r.peer, p, r.tl.acked(p), n, realWarmWait)
					}
				}
			}
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// leaderOf returns partition p's leader (the same broker for every
// peer's topic while no fault is on).
func (g *realGroup) leaderOf(p int32) int32 {
	g.t.Helper()
	l, err := g.c.Leader(g.ctx, g.topics[0], p)
	if err != nil || l < 0 {
		g.t.Fatalf("leader of %s[%d]: %d, %v", g.topics[0], p, l, err)
	}
	return l
}

// waitMoved waits until partition p of every topic is led by a broker
// other than from.
func (g *realGroup) waitMoved(p, from int32) {
	g.t.Helper()
	for _, topic := range g.topics {
		if err := g.c.WaitFor(g.ctx, topic, "led away from the faulted broker", func(q kafkatest.Partition) bool {
			return q.ID != p || (q.Leader >= 0 && q.Leader != from)
		}); err != nil {
			g.t.Fatal(err)
		}
	}
}

// handBack waits for a full ISR and runs the preferred-leader election on
// every topic, then checks broker to leads p again. A broker resumed or
// restarted a moment ago can be in every ISR the metadata shows and still
// not be electable (the controller has not unfenced it yet): the election
// is run again, for up to handBackWait, until it leads.
func (g *realGroup) handBack(p, to int32) {
	g.t.Helper()
	deadline := time.Now().Add(handBackWait)
	for {
		g.electPreferred()
		var wrong []string
		for _, topic := range g.topics {
			if l, err := g.c.Leader(g.ctx, topic, p); err != nil || l != to {
				wrong = append(wrong, fmt.Sprintf("%s[%d] is led by %d (%v)", topic, p, l, err))
			}
		}
		if len(wrong) == 0 {
			return
		}
		if time.Now().After(deadline) {
			g.t.Fatalf("after the preferred-leader election, want broker %d: %s", to, strings.Join(wrong, "; "))
		}
		g.note("preferred-leader election again: %s", strings.Join(wrong, "; "))
		time.Sleep(time.Second)
	}
}

// handBackWait bounds how long handBack re-runs the election.
const handBackWait = time.Minute

// electPreferred waits until every topic's replicas are all in sync, then
// hands every partition of every topic to its preferred replica in one
// election: every peer's partitions move at the same moment (topic by
// topic, the first peer's would always move first, onto the coldest
// broker).
func (g *realGroup) electPreferred() {
	g.t.Helper()
	for _, topic := range g.topics {
		if err := g.c.WaitHealthy(g.ctx, topic); err != nil {
			g.t.Fatal(err)
		}
	}
	if err := g.c.ElectPreferredTopicsWait(g.ctx, g.topics...); err != nil {
		g.t.Fatal(err)
	}
}

func (g *realGroup) awaitAll(n int, what string) {
	for p := range int32(realParts) {
		g.awaitAcks(p, n, what)
	}
}

// faultSeed is confluent-kafka-go#830's sequence: the leader of partition
// 0 is stopped with a controlled shutdown, restarted, and a
// preferred-leader election hands its partitions back.
func faultSeed(g *realGroup) {
	victim := g.leaderOf(0)
	if err := g.c.Stop(g.ctx, victim); err != nil {
		g.t.Fatal(err)
	}
	g.waitMoved(0, victim)
	g.note("broker %d stopped (controlled); partition 0 led elsewhere", victim)
	g.awaitAcks(0, 150, "after the stop")
	if err := g.c.Start(g.ctx, victim); err != nil {
		g.t.Fatal(err)
	}
	g.handBack(0, victim)
	g.note("broker %d restarted and leads partition 0 again", victim)
	g.awaitAll(150, "after the hand-back")
}

// faultKill: the leader of partition 0 is killed (SIGKILL), restarted, and
// takes its partitions back.
func faultKill(g *realGroup) {
	victim := g.leaderOf(0)
	if err := g.c.Kill(victim); err != nil {
		g.t.Fatal(err)
	}
	g.waitMoved(0, victim)
	g.note("broker %d killed; partition 0 led elsewhere", victim)
	g.awaitAcks(0, 150, "after the kill")
	if err := g.c.Start(g.ctx, victim); err != nil {
		g.t.Fatal(err)
	}
	g.handBack(0, victim)
	g.note("broker %d restarted and leads partition 0 again", victim)
	g.awaitAll(150, "after the hand-back")
}

// faultRoll: one rolling restart, each broker in turn stopped (controlled),
// restarted and handed its partitions back.
func faultRoll(g *realGroup) {
	for id := range int32(g.c.Brokers()) {
		if err := g.c.Stop(g.ctx, id); err != nil {
			g.t.Fatal(err)
		}
		for p := range int32(realParts) {
			g.waitMoved(p, id)
		}
		g.note("broker %d stopped (controlled)", id)
		if err := g.c.Start(g.ctx, id); err != nil {
			g.t.Fatal(err)
		}
		g.electPreferred()
		g.note("broker %d restarted and handed its partitions back", id)
		g.awaitAll(50, fmt.Sprintf("after broker %d's restart", id))
	}
}

// faultZombie: the leader of partition 0 is frozen (SIGSTOP) for three
// request timeouts; the controller fences it and elects another leader;
// then it resumes deposed and takes its partitions back.
func faultZombie(g *realGroup) {
	victim := g.leaderOf(0)
	if err := g.c.Pause(victim); err != nil {
		g.t.Fatal(err)
	}
	paused := time.Now()
	g.waitMoved(0, victim)
	g.note("broker %d paused; partition 0 led elsewhere after %v", victim, time.Since(paused).Round(time.Millisecond))
	g.awaitAcks(0, 150, "while the leader is paused")
	if d := time.Since(paused); d < 3*zombieTimeout {
		time.Sleep(3*zombieTimeout - d)
	}
	if err := g.c.Resume(victim); err != nil {
		g.t.Fatal(err)
	}
	g.note("broker %d resumed after %v", victim, time.Since(paused).Round(time.Millisecond))
	g.handBack(0, victim)
	g.awaitAll(150, "after the hand-back")
}

// faultBlackhole: every client connection to the leader of partition 0
// goes silent for three request timeouts (the brokers keep replicating),
// then heals and the held bytes arrive late.
func faultBlackhole(g *realGroup) {
	victim := g.leaderOf(0)
	g.c.Proxy(victim).Set(kafkatest.Blackhole, 0)
	time.Sleep(3 * zombieTimeout)
	g.c.Proxy(victim).Heal()
	for _, topic := range g.topics {
		if l, err := g.c.Leader(g.ctx, topic, 0); err != nil || l != victim {
			g.t.Fatalf("%s[0]: leadership moved during a client-side blackhole (%d -> %d, %v)", topic, victim, l, err)
		}
	}
	g.note("broker %d blackholed for %v, healed", victim, 3*zombieTimeout)
	g.awaitAll(150, "after the heal")
}

// faultMinInsync: on topics with min.insync.replicas=3, the leader of
// partition 0 is stopped (controlled) for three request timeouts: every
// partition keeps two replicas in sync, so acks=all is refused
// NOT_ENOUGH_REPLICAS, and batches appended just before wait above a high
// watermark that does not move until their requests time out (KIP-966),
// outcome unknown. Then the broker restarts and every ISR is whole again.
func faultMinInsync(g *realGroup) {
	victim := g.leaderOf(0)
	if err := g.c.Stop(g.ctx, victim); err != nil {
		g.t.Fatal(err)
	}
	for _, topic := range g.topics {
		if err := g.c.WaitFor(g.ctx, topic, "two replicas in sync", func(q kafkatest.Partition) bool {
			return q.Leader >= 0 && q.Leader != victim && len(q.ISR) == 2
		}); err != nil {
			g.t.Fatal(err)
		}
	}
	g.note("broker %d stopped (controlled): two of three replicas in sync, below min.insync.replicas=3", victim)
	time.Sleep(3 * zombieTimeout)
	if err := g.c.Start(g.ctx, victim); err != nil {
		g.t.Fatal(err)
	}
	for _, topic := range g.topics {
		if err := g.c.WaitHealthy(g.ctx, topic); err != nil {
			g.t.Fatal(err)
		}
	}
	g.note("broker %d restarted after %v; every replica in sync", victim, 3*zombieTimeout)
	g.awaitAll(150, "after the outage")
}

// The compound failure (kept short for CI: a 40 s freeze;
// ROLLSAFE_COMPOUND_FREEZE=60s plays the longer one).
const (
	compoundFreezeCI = 40 * time.Second // the leader of partition 0 stays frozen
	compoundKillAt   = 10 * time.Second // a second broker is killed, this far into the freeze
	compoundLeeway   = 5 * time.Second  // rollsafe's stall after the heal may exceed the best Go peer's by this much
	compoundCompare  = "kgo,sarama"     // the peers rollsafe's recovery is held to
)

// faultCompound: the leader of partition 0 is frozen (SIGSTOP); 10 s in,
// a second broker is killed (SIGKILL), so one replica of three is left
// running — below min.insync.replicas=2 everywhere, and, on KRaft (the
// nodes are combined voters), without a controller quorum; with ZooKeeper
// (2.8.1) the controller moves to the running broker; at 40 s both come
// back. The heal is when every topic has all its replicas in sync again;
// each peer's longest stall after it is compared (judgeRecovery).
func faultCompound(g *realGroup) {
	victim := g.leaderOf(0)
	second := (victim + 1) % int32(g.c.Brokers())
	if err := g.c.Pause(victim); err != nil {
		g.t.Fatal(err)
	}
	paused := time.Now()
	g.note("broker %d paused", victim)
	time.Sleep(compoundKillAt) // the fault's timeline, not a wait for a condition
	if err := g.c.Kill(second); err != nil {
		g.t.Fatal(err)
	}
	g.note("broker %d killed %v into the pause", second, time.Since(paused).Round(time.Millisecond))
	time.Sleep(time.Until(paused.Add(compoundFreeze(g.t))))
	if err := g.c.Resume(victim); err != nil {
		g.t.Fatal(err)
	}
	if err := g.c.Start(g.ctx, second); err != nil {
		g.t.Fatal(err)
	}
	g.note("broker %d resumed after %v, broker %d restarted", victim, time.Since(paused).Round(time.Millisecond), second)
	for _, topic := range g.topics {
		if err := g.c.WaitHealthy(g.ctx, topic); err != nil {
			g.t.Fatal(err)
		}
	}
	healed := time.Now()
	for _, r := range g.runs {
		r.healed = healed
	}
	g.note("every replica in sync again")
	g.awaitAll(150, "after the heal")
}

// compoundFreeze is how long the leader stays frozen:
// ROLLSAFE_COMPOUND_FREEZE (a Go duration above compoundKillAt) or
// compoundFreezeCI.
func compoundFreeze(t *testing.T) time.Duration {
	v := os.Getenv("ROLLSAFE_COMPOUND_FREEZE")
	if v == "" {
		return compoundFreezeCI
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= compoundKillAt {
		t.Fatalf("ROLLSAFE_COMPOUND_FREEZE=%q: want a duration above %v", v, compoundKillAt)
	}
	return d
}

// judgeRecovery holds rollsafe's longest stall after the heal to the best
// of the compared peers' in the same run, plus compoundLeeway.
func judgeRecovery(t *testing.T, results []peerResult) {
	t.Helper()
	var mine *peerResult
	best := time.Duration(-1)
	bestPeer := ""
	for i, res := range results {
		if !res.measuredHeal {
			return
		}
		switch {
		case res.peer == "rollsafe":
			mine = &results[i]
		case slices.Contains(strings.Split(compoundCompare, ","), res.peer) && len(res.fatal) == 0:
			if best < 0 || res.afterHeal < best {
				best, bestPeer = res.afterHeal, res.peer
			}
		}
	}
	for _, res := range results {
		t.Logf("%s: longest stall after the heal %.1f s", res.peer, res.afterHeal.Seconds())
	}
	if mine == nil || best < 0 {
		return
	}
	if mine.afterHeal > best+compoundLeeway {
		t.Errorf("rollsafe's longest stall after the heal %.1f s; %s's %.1f s, plus at most %v", mine.afterHeal.Seconds(), bestPeer, best.Seconds(), compoundLeeway)
	}
}
