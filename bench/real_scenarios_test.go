//go:build linux

package bench

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/kafkatest"
)

// The real-cluster scenarios run every peer against one 3-broker Apache
// Kafka cluster (kafkatest). By default (and in CI) the clean and seed
// scenarios run for every peer; ROLLSAFE_PEER_SCENARIOS=all runs all six,
// or names some (comma separated); ROLLSAFE_PEERS names the peers to run.
// ROLLSAFE_PEERS_TABLE=file writes the results as a markdown table.
//
//	cd bench && ROLLSAFE_PEER_SCENARIOS=all go test -run TestRealPeers -v -timeout 60m
const (
	realParts      = 6
	realPerTick    = 10               // records per 5 ms tick: 2,000 records/s over 6 partitions
	realWait       = 60 * time.Second // for acknowledgements that show production flows
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
	// fault runs while the load flows; it ends with production having
	// been given the chance to resume.
	fault func(r *realRun)
}

var realScenarios = []scenario{
	{"clean", peerOpts{}, func(r *realRun) {
		for p := range int32(realParts) {
			r.awaitAcks(p, 200, "clean load")
		}
	}},
	{"seed", peerOpts{}, faultSeed},
	{"kill", peerOpts{}, faultKill},
	{"roll", peerOpts{}, faultRoll},
	{"zombie", peerOpts{requestTimeout: zombieTimeout}, faultZombie},
	{"blackhole", peerOpts{requestTimeout: zombieTimeout}, faultBlackhole},
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
	var scNames, peerNames []string
	for _, s := range realScenarios {
		scNames = append(scNames, s.name)
	}
	for _, p := range realPeers() {
		peerNames = append(peerNames, p.name)
	}
	wantSc := selected("ROLLSAFE_PEER_SCENARIOS", scNames, []string{"clean", "seed"})
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
	c := kafkatest.LaunchT(t, kafkatest.Config{})
	var results []peerResult
	for _, sc := range realScenarios {
		if !slices.Contains(wantSc, sc.name) {
			continue
		}
		for _, p := range peers {
			t.Run(sc.name+"/"+p.name, func(t *testing.T) {
				res := runScenario(t, c, sc, p)
				results = append(results, res)
				t.Log(res.line())
				res.judge(t)
			})
		}
	}
	table := resultsTable(results)
	t.Log("\n" + table)
	if path := os.Getenv("ROLLSAFE_PEERS_TABLE"); path != "" {
		if err := os.WriteFile(path, []byte(table), 0o644); err != nil {
			t.Error(err)
		}
	}
}

// realRun is one peer under load in one scenario.
type realRun struct {
	t     *testing.T
	c     *kafkatest.Cluster
	ctx   context.Context
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
}

func runScenario(t *testing.T, c *kafkatest.Cluster, sc scenario, p realPeer) peerResult {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	topic := sc.name + "-" + p.name
	if err := c.CreateTopic(ctx, kafkatest.Topic{Name: topic, Partitions: realParts, Replication: 3,
		Configs: map[string]string{"min.insync.replicas": "2"}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(c.LogTails(40))
		}
		if err := restoreCluster(c, topic); err != nil {
			t.Errorf("restore the cluster: %v", err)
		}
	})
	r := &realRun{t: t, c: c, ctx: ctx, topic: topic, tl: newTally()}
	sess, err := p.start(ctx, c.Addrs(), topic, sc.opts, r.tl)
	if err != nil {
		t.Fatalf("start %s: %v", p.name, err)
	}
	r.sess = sess
	r.run()
	for p := range int32(realParts) {
		r.awaitAcks(p, 50, "warm-up")
	}
	r.from = time.Now()
	sc.fault(r)
	r.halt()
	fctx, fcancel := context.WithTimeout(ctx, realFinishWait)
	defer fcancel()
	if err := sess.finish(fctx); err != nil {
		r.note("finish: %v", err)
	}
	log, err := readback.ReadTopic(ctx, c.Addrs(), topic)
	if err != nil {
		t.Fatalf("read back: %v", err)
	}
	return r.result(sc.name, p.name, log)
}

func restoreCluster(c *kafkatest.Cluster, topic string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	for id := range int32(c.Brokers()) {
		c.Proxy(id).Heal()
		if c.Paused(id) {
			if err := c.Resume(id); err != nil {
				return err
			}
		}
		if !c.Running(id) {
			if err := c.Start(ctx, id); err != nil {
				return err
			}
		}
	}
	if err := c.WaitHealthy(ctx, topic); err != nil {
		return err
	}
	return c.ElectPreferredWait(ctx, topic)
}

func (r *realRun) note(format string, args ...any) {
	n := fmt.Sprintf("%6.1fs ", time.Since(r.began).Seconds()) + fmt.Sprintf(format, args...)
	r.notes = append(r.notes, n)
	r.t.Log(n)
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

// awaitAcks waits until partition p has n more acknowledgements than now,
// noting it (not failing: a peer that stops producing is a result) when
// they do not come.
func (r *realRun) awaitAcks(p int32, n int, what string) bool {
	want := r.tl.acked(p) + n
	within := realWait
	if r.tl.isFatal() {
		within = deadPeerWait
	}
	deadline := time.Now().Add(within)
	for r.tl.acked(p) < want {
		if time.Now().After(deadline) {
			r.note("%s: partition %d got %d of %d acknowledgements within %v", what, p, r.tl.acked(p)-(want-n), n, within)
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

func (r *realRun) leaderOf(p int32) int32 {
	r.t.Helper()
	l, err := r.c.Leader(r.ctx, r.topic, p)
	if err != nil || l < 0 {
		r.t.Fatalf("leader of %s[%d]: %d, %v", r.topic, p, l, err)
	}
	return l
}

// waitMoved waits until partition p is led by a broker other than from.
func (r *realRun) waitMoved(p, from int32) int32 {
	r.t.Helper()
	if err := r.c.WaitFor(r.ctx, r.topic, "led away from the faulted broker", func(q kafkatest.Partition) bool {
		return q.ID != p || (q.Leader >= 0 && q.Leader != from)
	}); err != nil {
		r.t.Fatal(err)
	}
	return r.leaderOf(p)
}

// handBack waits for a full ISR and runs the preferred-leader election,
// then checks broker to leads p again.
func (r *realRun) handBack(p, to int32) {
	r.t.Helper()
	if err := r.c.WaitHealthy(r.ctx, r.topic); err != nil {
		r.t.Fatal(err)
	}
	if err := r.c.ElectPreferredWait(r.ctx, r.topic); err != nil {
		r.t.Fatal(err)
	}
	if l := r.leaderOf(p); l != to {
		r.t.Fatalf("after the preferred-leader election %s[%d] is led by %d, want %d", r.topic, p, l, to)
	}
}

// faultSeed is confluent-kafka-go#830's sequence: the leader of partition
// 0 is stopped with a controlled shutdown, restarted, and a
// preferred-leader election hands its partitions back.
func faultSeed(r *realRun) {
	victim := r.leaderOf(0)
	if err := r.c.Stop(r.ctx, victim); err != nil {
		r.t.Fatal(err)
	}
	r.note("broker %d stopped (controlled); partition 0 now led by %d", victim, r.waitMoved(0, victim))
	r.awaitAcks(0, 150, "after the stop")
	if err := r.c.Start(r.ctx, victim); err != nil {
		r.t.Fatal(err)
	}
	r.handBack(0, victim)
	r.note("broker %d restarted and leads partition 0 again", victim)
	for p := range int32(realParts) {
		r.awaitAcks(p, 150, "after the hand-back")
	}
}

// faultKill: the leader of partition 0 is killed (SIGKILL), restarted, and
// takes its partitions back.
func faultKill(r *realRun) {
	victim := r.leaderOf(0)
	if err := r.c.Kill(victim); err != nil {
		r.t.Fatal(err)
	}
	r.note("broker %d killed; partition 0 now led by %d", victim, r.waitMoved(0, victim))
	r.awaitAcks(0, 150, "after the kill")
	if err := r.c.Start(r.ctx, victim); err != nil {
		r.t.Fatal(err)
	}
	r.handBack(0, victim)
	for p := range int32(realParts) {
		r.awaitAcks(p, 150, "after the hand-back")
	}
}

// faultRoll: one rolling restart, each broker in turn stopped (controlled),
// restarted and handed its partitions back.
func faultRoll(r *realRun) {
	for id := range int32(r.c.Brokers()) {
		before, err := r.c.Partitions(r.ctx, r.topic)
		if err != nil {
			r.t.Fatal(err)
		}
		if err := r.c.Stop(r.ctx, id); err != nil {
			r.t.Fatal(err)
		}
		for _, p := range before {
			if p.Leader == id {
				r.waitMoved(p.ID, id)
			}
		}
		if err := r.c.Start(r.ctx, id); err != nil {
			r.t.Fatal(err)
		}
		if err := r.c.WaitHealthy(r.ctx, r.topic); err != nil {
			r.t.Fatal(err)
		}
		if err := r.c.ElectPreferredWait(r.ctx, r.topic); err != nil {
			r.t.Fatal(err)
		}
		for p := range int32(realParts) {
			r.awaitAcks(p, 50, fmt.Sprintf("after broker %d's restart", id))
		}
		r.note("broker %d restarted", id)
	}
}

// faultZombie: the leader of partition 0 is frozen (SIGSTOP) for three
// request timeouts; the controller fences it and elects another leader;
// then it resumes deposed and takes its partitions back.
func faultZombie(r *realRun) {
	victim := r.leaderOf(0)
	if err := r.c.Pause(victim); err != nil {
		r.t.Fatal(err)
	}
	paused := time.Now()
	r.note("broker %d paused; partition 0 led by %d after %v", victim, r.waitMoved(0, victim), time.Since(paused).Round(time.Millisecond))
	r.awaitAcks(0, 150, "while the leader is paused")
	if d := time.Since(paused); d < 3*zombieTimeout {
		time.Sleep(3*zombieTimeout - d)
	}
	if err := r.c.Resume(victim); err != nil {
		r.t.Fatal(err)
	}
	r.note("broker %d resumed after %v", victim, time.Since(paused).Round(time.Millisecond))
	r.handBack(0, victim)
	for p := range int32(realParts) {
		r.awaitAcks(p, 150, "after the hand-back")
	}
}

// faultBlackhole: every client connection to the leader of partition 0
// goes silent for three request timeouts (the brokers keep replicating),
// then heals and the held bytes arrive late.
func faultBlackhole(r *realRun) {
	victim := r.leaderOf(0)
	r.c.Proxy(victim).Set(kafkatest.Blackhole, 0)
	time.Sleep(3 * zombieTimeout)
	r.c.Proxy(victim).Heal()
	if l := r.leaderOf(0); l != victim {
		r.t.Fatalf("leadership moved during a client-side blackhole (%d -> %d)", victim, l)
	}
	r.note("broker %d blackholed for %v, healed", victim, 3*zombieTimeout)
	for p := range int32(realParts) {
		r.awaitAcks(p, 150, "after the heal")
	}
}
