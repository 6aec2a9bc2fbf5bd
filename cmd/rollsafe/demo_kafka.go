package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rollsafe/rollsafe/kafkatest"
)

// kafkaStep is one step of the seed's roll on real brokers.
type kafkaStep struct {
	what string
	run  func(ctx context.Context) (string, error) // returns what it saw
}

// kafkaStepTimeout bounds one step (a broker's controlled shutdown or
// start, an election) on the local cluster.
const kafkaStepTimeout = 3 * time.Minute

// kafkaRuntime finds Java and Kafka v's broker jars, or says on one line
// what is missing and how to get it.
func kafkaRuntime(v kafkatest.Version) (kafkatest.Runtime, error) {
	rt, err := kafkatest.FindRuntimeFor(v)
	if err != nil {
		why := strings.TrimSuffix(err.Error(), "; "+kafkatest.HowToRun)
		why = strings.TrimPrefix(why, kafkatest.ErrUnavailable.Error()+": ")
		return rt, runtimeMissing{fmt.Sprintf("-kafka needs Java 17+ and Apache Kafka %s's jars: %s; get them with kafkatest/fetch.sh (needs mvn) in a rollsafe checkout",
			v, why)}
	}
	return rt, nil
}

// runtimeMissing says what demo -kafka lacks; it matches
// kafkatest.ErrUnavailable.
type runtimeMissing struct{ msg string }

func (e runtimeMissing) Error() string { return e.msg }
func (e runtimeMissing) Unwrap() error { return kafkatest.ErrUnavailable }

// demoKafka is demo on a real local 3-broker Apache Kafka cluster started
// by kafkatest: the seed's roll (confluent-kafka-go#830) on real brokers —
// the leader of partition 0 stopped by a controlled shutdown under load,
// restarted, and handed its leadership back by a preferred-leader election
// — paced by the records produced as the simulated demo is: step i starts
// when production reaches its mark, and production does not pass the next
// mark (for the last step, 95% of the records) until it is done.
func demoKafka(ctx context.Context, out io.Writer, cfg demoConfig) (demoReport, error) {
	n := cfg.records
	rep := demoReport{records: n}
	rt, err := kafkaRuntime(cfg.kafkaVersion)
	if err != nil {
		return rep, err
	}
	fmt.Fprintf(out, "rollsafe demo: %d records of %d B (%s) to %d partitions, scenario %q, on real Apache Kafka %s (%s)\n",
		n, cfg.size, cfg.codec, cfg.partitions, cfg.sched.Name, rt.Version, rt.Version.Mode())
	c, err := kafkatest.Launch(ctx, kafkatest.Config{Version: rt.Version, Runtime: rt, Logf: func(format string, args ...any) {
		fmt.Fprintf(out, "  "+format+"\n", args...)
	}})
	if err != nil {
		return rep, err
	}
	defer func() {
		if err := c.Close(); err != nil {
			fmt.Fprintln(out, "  stopping the cluster:", err)
		}
	}()
	fmt.Fprintf(out, "  3-broker cluster at %s (brokers' logs under %s)\n", strings.Join(c.Addrs(), ","), strings.TrimSuffix(c.LogPath(0), "/node-0/server.log"))
	tctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	// The fixture's events carry timestamps from 2024: without
	// retention.ms=-1 the brokers' time-based retention deletes them.
	err = c.CreateTopic(tctx, kafkatest.Topic{Name: demoTopic, Partitions: cfg.partitions, Replication: 3,
		Configs: map[string]string{"min.insync.replicas": "2", "retention.ms": "-1"}})
	cancel()
	if err != nil {
		return rep, err
	}
	var steps []kafkaStep
	if cfg.sched.Name == "seed" {
		if steps, err = seedSteps(ctx, c); err != nil {
			return rep, err
		}
	}
	rep.steps = len(steps)
	for _, st := range steps {
		fmt.Fprintf(out, "  step: %s\n", st.what)
	}

	run, err := newDemoRun(c.Addrs(), cfg, &rep)
	if err != nil {
		return rep, err
	}
	marks, waitAt := kafkaMarks(len(steps), n, cfg.faultAt)
	g := newGates(marks, waitAt)
	var mu sync.Mutex
	current := "none"
	setCurrent := func(s string) { mu.Lock(); current = s; mu.Unlock() }
	var seen []string
	played := make(chan error, 1)
	pctx, stopPlay := context.WithCancel(ctx)
	defer stopPlay()
	go func() {
		var err error
		i := 0
		for ; i < len(steps) && err == nil; i++ {
			select {
			case <-g.reached[i]:
			case <-pctx.Done():
				err = pctx.Err()
				continue
			}
			setCurrent(steps[i].what)
			began := time.Now()
			sctx, cancel := context.WithTimeout(pctx, kafkaStepTimeout)
			var saw string
			saw, err = steps[i].run(sctx)
			cancel()
			if err != nil {
				err = fmt.Errorf("step %d/%d (%s): %w", i+1, len(steps), steps[i].what, err)
				break
			}
			mu.Lock()
			rep.played++
			seen = append(seen, fmt.Sprintf("step %d/%d %s in %v: %s", i+1, len(steps), steps[i].what, time.Since(began).Round(100*time.Millisecond), saw))
			mu.Unlock()
			setCurrent(fmt.Sprintf("none (step %d/%d done)", i+1, len(steps)))
			close(g.done[i])
		}
		for j := range g.done {
			select {
			case <-g.done[j]:
			default:
				close(g.done[j])
			}
		}
		played <- err
	}()
	flushErr := run.produce(ctx, out, g, func() string { mu.Lock(); defer mu.Unlock(); return current })
	stopPlay() // every step was waited for, unless ctx ended
	playErr := <-played
	switch {
	case playErr != nil && !errors.Is(playErr, context.Canceled):
		rep.notPlayed = playErr
	case rep.played < rep.steps:
		rep.notPlayed = fmt.Errorf("only %d of %d steps ran before the records ran out", rep.played, rep.steps)
	}
	for _, s := range seen {
		fmt.Fprintf(out, "  played: %s\n", s)
	}
	if err := run.close(flushErr); err != nil {
		return rep, err
	}
	return rep, run.readBack(ctx, out, c.Addrs())
}

// kafkaMarks places k steps by records produced: the first at faultAt of
// the n records, the last half the records later (at most at 90%), the
// others evenly between; step i must be done before production reaches
// the next step's mark, the last before 95% of the records, so records
// are still produced after the last step.
func kafkaMarks(k, n int, faultAt float64) (marks, waitAt []int) {
	first := int(faultAt * float64(n))
	last := min(first+n/2, n*9/10)
	for i := range k {
		m := first
		if k > 1 {
			m += (last - first) * i / (k - 1)
		}
		marks = append(marks, min(m, n-1))
	}
	for i := range k {
		w := max(marks[i]+1, n*95/100)
		if i+1 < k {
			w = max(marks[i], marks[i+1])
		}
		waitAt = append(waitAt, min(w, n-1))
	}
	return marks, waitAt
}

// seedSteps are confluent-kafka-go#830's roll on the cluster: the leader
// of the demo topic's partition 0 goes down by a controlled shutdown
// (its leaderships move to the other replicas), comes back, catches up,
// and a preferred-leader election hands its partitions back to it. Each
// step fails unless the cluster did what the step says.
func seedSteps(ctx context.Context, c *kafkatest.Cluster) ([]kafkaStep, error) {
	victim, err := c.Leader(ctx, demoTopic, 0)
	if err != nil {
		return nil, err
	}
	if victim < 0 {
		return nil, fmt.Errorf("%s/0 has no leader", demoTopic)
	}
	partition0 := func(ctx context.Context, what string, ok func(kafkatest.Partition) bool) (kafkatest.Partition, error) {
		var got kafkatest.Partition
		err := c.WaitFor(ctx, demoTopic, what, func(p kafkatest.Partition) bool {
			if p.ID != 0 {
				return true
			}
			got = p
			return ok(p)
		})
		return got, err
	}
	return []kafkaStep{
		{fmt.Sprintf("controlled shutdown of broker %d (leader of %s/0)", victim, demoTopic), func(ctx context.Context) (string, error) {
			if err := c.Stop(ctx, victim); err != nil {
				return "", err
			}
			p, err := partition0(ctx, "led away from the stopped broker", func(p kafkatest.Partition) bool {
				return p.Leader >= 0 && p.Leader != victim
			})
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("broker %d stopped, %s/0 led by broker %d", victim, demoTopic, p.Leader), nil
		}},
		{fmt.Sprintf("restart broker %d", victim), func(ctx context.Context) (string, error) {
			if err := c.Start(ctx, victim); err != nil {
				return "", err
			}
			p, err := partition0(ctx, "caught up", func(p kafkatest.Partition) bool {
				return slices.Contains(p.ISR, victim)
			})
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("broker %d back in the ISR %v of %s/0, which broker %d still leads", victim, p.ISR, demoTopic, p.Leader), nil
		}},
		{fmt.Sprintf("preferred-leader election: broker %d takes %s/0 back", victim, demoTopic), func(ctx context.Context) (string, error) {
			if err := c.WaitHealthy(ctx, demoTopic); err != nil {
				return "", err
			}
			if err := c.ElectPreferredWait(ctx, demoTopic); err != nil {
				return "", err
			}
			p, err := partition0(ctx, "led by its preferred replica", func(p kafkatest.Partition) bool { return p.Leader == victim })
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("%s/0 led by broker %d again (leader epoch %d)", demoTopic, p.Leader, p.LeaderEpoch), nil
		}},
	}, nil
}
