package kafkatest

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/sim"
)

// TestJavaAdminDescribesSim: Kafka's own Admin client (kafka-clients
// 4.4, testdata/DescribeTopics.java) describes the sim's topics. It asks
// DescribeTopicPartitions, two partitions per answer, so it follows the
// sim's cursors through topic a's five partitions; topic b's partition has
// no leader (its follower, then its leader stopped, min.insync.replicas=2):
// no leader, an empty ISR, both replicas eligible, the last leader known —
// what Kafka 4.4 shows in the same state (kafkacheck.ELRElection). On a
// Pre25 sim, which does not serve DescribeTopicPartitions, the client
// falls back to Metadata: the same leaders and ISRs, no eligible replica.
func TestJavaAdminDescribesSim(t *testing.T) {
	t.Run("kafka-4.4", func(t *testing.T) { javaAdminDescribes(t, false) })
	t.Run("pre-2.5", func(t *testing.T) { javaAdminDescribes(t, true) })
}

func javaAdminDescribes(t *testing.T, pre25 bool) {
	rt := Require(t)
	opts := []sim.Option{sim.Brokers(3), sim.Topic("a", 5, 3), sim.Topic("b", 1, 2), sim.MinInsyncReplicas("b", 2)}
	if pre25 {
		opts = append(opts, sim.Pre25())
	}
	c, err := sim.NewCluster(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	bLeader, _ := c.Leader("b", 0)
	replicas, err := c.Replicas("b", 0)
	if err != nil {
		t.Fatal(err)
	}
	bFollower := replicas[0]
	if bFollower == bLeader {
		bFollower = replicas[1]
	}
	for _, id := range []int32{bFollower, bLeader} {
		if err := c.StopBroker(id); err != nil {
			t.Fatal(err)
		}
	}
	up := -1
	for id := range int32(3) {
		if c.BrokerUp(id) {
			up = int(id)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, rt.Java, "-cp", rt.Classpath(), "testdata/DescribeTopics.java", c.Addrs()[up], "2", "a", "b")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("DescribeTopics.java: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	var want []string
	ids := func(xs []int32) string {
		if len(xs) == 0 {
			return "-"
		}
		s := slices.Sorted(slices.Values(xs))
		var parts []string
		for _, x := range s {
			parts = append(parts, fmt.Sprint(x))
		}
		return strings.Join(parts, ",")
	}
	for p := range int32(5) {
		leader, _ := c.Leader("a", p)
		isr, _ := c.ISR("a", p)
		reps, _ := c.Replicas("a", p)
		want = append(want, fmt.Sprintf("a %d %d %s - - %s", p, leader, ids(isr), ids(reps)))
	}
	if pre25 {
		want = append(want, fmt.Sprintf("b 0 - - - - %s", ids(replicas)))
	} else {
		want = append(want, fmt.Sprintf("b 0 - - %s %d %s", ids([]int32{bLeader, bFollower}), bLeader, ids(replicas)))
	}
	if !slices.Equal(lines, want) {
		t.Fatalf("Kafka's Admin client describes:\n%s\nthe sim holds:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	// It asked DescribeTopicPartitions (not Metadata, its fallback), once
	// per page.
	var pages int
	for _, e := range c.Recorder().Exchanges() {
		if e.Key == 75 && e.Response != nil {
			pages++
		}
	}
	wantPages := 3 // a/0-1, a/2-3, a/4 and b/0
	if pre25 {
		wantPages = 0 // not served: Metadata instead
	}
	if pages != wantPages {
		t.Fatalf("%d DescribeTopicPartitions answered; want %d", pages, wantPages)
	}
}

// TestJavaClientsOnSim: Kafka's own idempotent producer (acks=all, every
// codec; and under moving leaders and a killed broker) writes to the sim
// and Kafka's own consumer reads the records back
// (testdata/ProduceConsume.java): every record acknowledged once, read at
// its acknowledged offset, in order on its partition — and the sim's log,
// read over the wire by rollsafe's reader, holds the same.
func TestJavaClientsOnSim(t *testing.T) {
	rt := Require(t)
	for _, codec := range []string{"none", "gzip", "snappy", "lz4", "zstd", "moving-leaders"} {
		t.Run(codec, func(t *testing.T) {
			parts, records := 3, 600
			args := []string{codec}
			if codec == "moving-leaders" {
				// 3,000 records over ~3 s while a partition's leader
				// moves every 100 ms, and a broker is killed (kill -9)
				// and restarted half a second later.
				records, args = 3000, []string{"lz4", "1000"}
			}
			c, err := sim.NewCluster(sim.Brokers(3), sim.Topic("j", int32(parts), 3))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = c.Close() })
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, rt.Java, append([]string{"-cp", rt.Classpath(), "testdata/ProduceConsume.java",
				strings.Join(c.Addrs(), ","), "j", fmt.Sprint(parts), fmt.Sprint(records)}, args...)...)
			var stdout bytes.Buffer
			stderr := newMarkWriter("produced\n")
			cmd.Stdout, cmd.Stderr = &stdout, stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			moves, ticks, killed, restarted := 0, 0, false, false
			if codec == "moving-leaders" {
				exited := make(chan error, 1)
				go func() { exited <- cmd.Wait() }()
				tick := time.NewTicker(100 * time.Millisecond)
				defer tick.Stop()
				produced := stderr.seen
			moving:
				for {
					select {
					case err = <-exited:
						break moving
					case <-produced:
						// The consumer reads a cluster at rest: leaders
						// moving every 300 ms under it can starve one
						// partition's fetches past its 30 s.
						tick.Stop()
						produced = nil
					case <-tick.C:
						ticks++
						switch ticks {
						case 15:
							if c.BrokerUp(2) {
								killed = c.KillProcess(2) == nil
							}
						case 20:
							if !c.BrokerUp(2) && c.StartBroker(2) == nil {
								restarted = true
							}
						}
						p := int32(ticks % parts)
						leader, _ := c.Leader("j", p)
						if err := c.MoveLeader("j", p, (leader+1)%3); err == nil {
							moves++
						}
					}
				}
				t.Logf("%d leader moves while Kafka's producer wrote, broker 2 killed (kill -9) and restarted among them", moves)
				if moves < 15 || !killed || !restarted {
					t.Fatalf("%d leader moves, broker 2 killed %v, restarted %v; the faults were not played", moves, killed, restarted)
				}
			} else {
				err = cmd.Wait()
			}
			if err != nil {
				t.Fatalf("ProduceConsume.java: %v\n%s%s", err, stdout.String(), stderr.String())
			}
			acked, read := map[string]string{}, map[string]string{}
			lastRead := map[string]int{}
			for _, l := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
				f := strings.Fields(l)
				if len(f) != 4 {
					t.Fatalf("line %q", l)
				}
				at := f[2] + "@" + f[3]
				switch f[0] {
				case "acked":
					acked[f[1]] = at
				case "read":
					if _, dup := read[f[1]]; dup {
						t.Fatalf("%s read twice", f[1])
					}
					read[f[1]] = at
					var i int
					fmt.Sscanf(f[1], "v%d", &i)
					if prev, ok := lastRead[f[2]]; ok && i < prev {
						t.Fatalf("partition %s: v%d read after v%d", f[2], i, prev)
					}
					lastRead[f[2]] = i
				}
			}
			if len(acked) != records || len(read) != records {
				t.Fatalf("%d acknowledged, %d read; want %d each\n%s", len(acked), len(read), records, stderr.String())
			}
			for v, at := range acked {
				if read[v] != at {
					t.Fatalf("%s acknowledged at %s, read at %q", v, at, read[v])
				}
			}
			log, err := readback.ReadTopic(ctx, c.Addrs(), "j")
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for p, recs := range log {
				for _, r := range recs {
					if at := fmt.Sprintf("%d@%d", p, r.Offset); acked[string(r.Value)] != at {
						t.Fatalf("the sim's log holds %s at %s; acknowledged at %q", r.Value, at, acked[string(r.Value)])
					}
					if r.ProducerID < 0 || r.BaseSequence < 0 {
						t.Fatalf("%s written without idempotence (producer id %d, sequence %d)", r.Value, r.ProducerID, r.BaseSequence)
					}
					n++
				}
			}
			if n != records {
				t.Fatalf("the sim's log holds %d records; want %d", n, records)
			}
		})
	}
}

// markWriter keeps what is written to it and closes seen once the bytes
// written so far contain mark.
type markWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	mark string
	seen chan struct{}
}

func newMarkWriter(mark string) *markWriter {
	return &markWriter{mark: mark, seen: make(chan struct{})}
}

func (w *markWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, _ := w.buf.Write(b)
	if w.mark != "" && strings.Contains(w.buf.String(), w.mark) {
		w.mark = ""
		close(w.seen)
	}
	return n, nil
}

func (w *markWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}
